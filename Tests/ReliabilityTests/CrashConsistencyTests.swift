import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

extension Reliability {
    /// Writer processes killed with SIGKILL at seeded random moments, again and again on one
    /// store: after every kill the log verifies, nothing acknowledged is missing, and the read
    /// models catch up to exactly what a rebuild gives.
    ///
    /// The writers are `ChronicleTorture domain-writer` (user and todo commands through
    /// `ChronicleStore`, background projections on) and `append-burst` (raw appends in
    /// batches, several tasks). A kill lands at start-up, while the store is being opened or
    /// created, in a group commit, between an append and its ack, or in a projection batch.
    @Suite("Crash consistency", .timeLimit(.minutes(10)))
    struct CrashConsistencyTests {
        /// Kills per run of each test (the issue asks for at least 50 in all).
        static let domainKills = 50
        static let burstKills = 40

        /// Where to kill a writer: at once, once its store is open, or after some acks.
        enum Moment: CustomStringConvertible {
            case atOnce, whenReady, afterAcks(Int)

            static func random(using random: inout SeededGenerator) -> Moment {
                switch Int.random(in: 0..<10, using: &random) {
                case 0: .atOnce
                case 1: .whenReady
                default: .afterAcks(Int.random(in: 1...12, using: &random))
                }
            }

            var description: String {
                switch self {
                case .atOnce: "at once"
                case .whenReady: "when ready"
                case .afterAcks(let count): "after \(count) acks"
                }
            }
        }

        /// Runs `child` until `moment`, then kills it; fails unless the kill is what ended it.
        /// A writer started with `--wait-for-go` is told to go once it is ready.
        static func kill(_ child: ChildProcess, at moment: Moment, waitsForGo: Bool = false, _ context: String) async throws {
            if case .atOnce = moment {} else {
                let line = try await child.firstLine(what: "\(context): ready") { $0 == "ready" }
                try #require(line != nil, "\(context): the writer ended before it was ready: \(child.standardErrorText)")
            }
            if case .afterAcks(let count) = moment {
                if waitsForGo { try child.send("go") }
                let line = try await child.firstLine(what: "\(context): \(count) acks", where: isAck(atLeast: count))
                try #require(line != nil, "\(context): the writer ended before \(count) acks: \(child.standardErrorText)")
            }
            child.kill()
            let exit = try await withTimeout(.seconds(60), "\(context): killed writer's exit") { await child.waitForExit() }
            #expect(exit == .init(status: SIGKILL, wasSignalled: true),
                    "\(context): the writer was not killed but ended with \(exit): \(child.standardErrorText)")
        }

        @Test("domain writers killed at random moments lose nothing acknowledged; projections equal a rebuild")
        func killedDomainWriters() async throws {
            let torture = try Products.torture()
            try await TemporaryFolder.with("crash-domain") { root in
                let store = root + "/store"
                var random = TestSeed.generator(for: "CrashConsistencyTests.killedDomainWriters")
                var acknowledged: [DomainAck] = []
                for round in 0..<Self.domainKills {
                    let moment = round == 0 ? .afterAcks(4) : Moment.random(using: &random)
                    let context = "round \(round) (killed \(moment))"
                    let acks = root + "/acks-\(round)"
                    let child = try await ChildProcess(torture, [
                        "domain-writer", "--store", store, "--seed", "\(random.next() >> 1)", "--concurrency", "2",
                        "--ack-file", acks, "--echo-acks",
                    ])
                    try await Self.kill(child, at: moment, context)
                    acknowledged += try AckFile.domain(acks)
                    try await StoreCheck.afterCrash(store, acknowledged: acknowledged, context)
                }
                // The kills landed while work was going on, not only on idle processes.
                #expect(acknowledged.count >= Self.domainKills * 3)
            }
        }

        @Test("append-burst writers killed mid-burst keep every acknowledged event at its position")
        func killedBurstWriters() async throws {
            let torture = try Products.torture()
            try await TemporaryFolder.with("crash-burst") { root in
                var random = TestSeed.generator(for: "CrashConsistencyTests.killedBurstWriters")
                var acknowledged: [UUID: UInt64] = [:]
                for round in 0..<Self.burstKills {
                    let moment = round == 0 ? .afterAcks(10) : Moment.random(using: &random)
                    let context = "round \(round) (killed \(moment))"
                    let acks = root + "/acks-\(round)"
                    // A 1 MiB map and 2 KB payloads: some kills land while the map grows.
                    let child = try await ChildProcess(torture, [
                        "append-burst", "--store", root, "--count", "1000000", "--batch", "\(Int.random(in: 1...4, using: &random))",
                        "--stream-prefix", "burst", "--streams", "3", "--concurrency", "3",
                        "--payload-bytes", "2000", "--map-size", "\(1 << 20)", "--ack-file", acks, "--echo-acks", "--wait-for-go",
                    ])
                    try await Self.kill(child, at: moment, waitsForGo: true, context)
                    for ack in try AckFile.events(acks) { acknowledged[ack.id] = ack.position }

                    let log = try EventLog(path: root + "/log", options: .init(checkHeadOnOpen: true))
                    defer { log.close() }
                    let report = try log.verify()
                    #expect(report.isIntact, "\(context): \(String(describing: report.problem))")
                    for (id, position) in acknowledged {
                        #expect(try log.event(id: id)?.position == position, "\(context): acknowledged event \(id) is missing")
                    }
                    // Stream versions stay contiguous across the crashes.
                    for stream in 0..<3 {
                        let versions = try log.read(stream: "burst-\(stream)").map(\.version)
                        #expect(versions == (0..<versions.count).map { UInt64($0 + 1) },
                                "\(context): versions of burst-\(stream) have a hole")
                    }
                }
                #expect(acknowledged.count >= Self.burstKills * 5)
            }
        }
    }
}

import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

extension Reliability {
    /// Several OS processes on one store at once: four writers and a tailing reader.
    @Suite("Concurrent processes", .timeLimit(.minutes(10)))
    struct ConcurrentProcessesTests {
        @Test("four writer processes and a tailing reader: gap-free, nothing lost, versions contiguous, each event seen once in order")
        func fourWritersAndATail() async throws {
            let torture = try Products.torture()
            try await TemporaryFolder.with("four-writers") { store in
                let perWriter = 300
                let total = 4 * perWriter
                // The five processes create the store together: LMDB's lock file serialises that too.
                var writers: [(tag: String, child: ChildProcess, acks: String)] = []
                for tag in ["A", "B", "C", "D"] {
                    let acks = store + "/acks-\(tag)"
                    let child = try await ChildProcess(torture, [
                        "append-burst", "--store", store, "--count", "\(perWriter)", "--batch", "3", "--stream-prefix", "shared",
                        "--streams", "5", "--tag", tag, "--concurrency", "2", "--payload-bytes", "300", "--map-size", "\(1 << 20)",
                        "--ack-file", acks, "--wait-for-go",
                    ])
                    writers.append((tag, child, acks))
                }
                let tail = try await ChildProcess(torture, ["tail", "--store", store, "--count", "\(total)"])
                #expect(try await tail.firstLine { $0 == "ready" } != nil, "the tail never became ready: \(tail.standardErrorText)")
                for (tag, child, _) in writers {
                    #expect(try await child.firstLine { $0 == "ready" } != nil, "writer \(tag) never became ready: \(child.standardErrorText)")
                }
                for (_, child, _) in writers { try child.send("go") }

                let seen = try await withTimeout(.seconds(120), "the tail reading \(total) events") {
                    var seen: [String] = []
                    for await line in tail.lines { seen.append(line) }
                    return seen
                }
                for (tag, child, _) in writers {
                    let done = try await child.firstLine { $0.hasPrefix("done ") }
                    let exit = try await withTimeout(.seconds(60), "writer \(tag)'s exit") { await child.waitForExit() }
                    #expect(done != nil && exit == .init(status: 0, wasSignalled: false), "writer \(tag) failed: \(child.standardErrorText)")
                }
                let tailExit = try await withTimeout(.seconds(60), "the tail's exit") { await tail.waitForExit() }
                #expect(tailExit == .init(status: 0, wasSignalled: false), "the tail failed: \(tail.standardErrorText)")

                let log = try EventLog(path: store + "/log", options: .init(checkHeadOnOpen: true))
                defer { log.close() }
                let events = try log.read(after: 0, limit: total + 10)
                #expect(events.map(\.position) == (1...UInt64(total)).map { $0 }, "positions are not 1…\(total) without a gap")
                #expect(Set(events.map(\.id)).count == total)
                // The reader saw every event once, in the log's order.
                #expect(seen == events.map { "\($0.position) \($0.id.uuidString.lowercased())" })
                // Every acknowledged append is there, at the position its writer was told.
                var acknowledged = 0
                for (_, _, acks) in writers {
                    for ack in try AckFile.events(acks) {
                        acknowledged += 1
                        #expect(events[Int(ack.position) - 1].id == ack.id, "acked event \(ack.id) is not at \(ack.position)")
                    }
                }
                #expect(acknowledged == total)
                // Each stream's versions run 1, 2, 3, … in position order, whichever process wrote them.
                for stream in 0..<5 {
                    let versions = try log.read(stream: "shared-\(stream)").map(\.version)
                    #expect(versions == (0..<versions.count).map { UInt64($0 + 1) }, "shared-\(stream) versions: \(versions)")
                }
                #expect(Set(events.map { String(decoding: $0.data.prefix(12), as: UTF8.self) }).count == 4)
                let report = try log.verify()
                #expect(report.isIntact, "\(String(describing: report.problem))")
                #expect(report.eventsChecked == total)
            }
        }

        @Test("three domain writer processes with background projections: every event applied once")
        func threeDomainWriters() async throws {
            let torture = try Products.torture()
            try await TemporaryFolder.with("domain-writers") { root in
                let store = root + "/store"
                var writers: [(child: ChildProcess, acks: String)] = []
                for partition in 0..<3 {
                    let acks = root + "/acks-\(partition)"
                    let child = try await ChildProcess(torture, [
                        "domain-writer", "--store", store, "--seed", "\(700 + partition)", "--count", "20", "--concurrency", "2",
                        "--partition", "\(partition)", "--partitions", "3", "--ack-file", acks, "--wait-for-go",
                    ])
                    writers.append((child, acks))
                }
                for (child, _) in writers {
                    #expect(try await child.firstLine { $0 == "ready" } != nil, "a writer never became ready: \(child.standardErrorText)")
                }
                for (child, _) in writers { try child.send("go") }
                var acknowledged: [DomainAck] = []
                for (child, acks) in writers {
                    let done = try await child.firstLine { $0.hasPrefix("done ") }
                    let exit = try await withTimeout(.seconds(120), "a domain writer's exit") { await child.waitForExit() }
                    #expect(done != nil && exit == .init(status: 0, wasSignalled: false), "a writer failed: \(child.standardErrorText)")
                    acknowledged += try AckFile.domain(acks)
                }
                // Each command acknowledged at least one append (rejections are not acknowledged).
                #expect(acknowledged.count >= 3 * 2 * 15)
                try await StoreCheck.afterCrash(store, acknowledged: acknowledged, "three domain writers")
            }
        }
    }
}

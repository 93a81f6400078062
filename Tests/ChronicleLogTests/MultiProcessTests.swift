import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// Several OS processes on one store, and writers killed with SIGKILL mid-burst.
/// The other processes are `ChronicleTorture` (see `Sources/ChronicleTorture`).
@Suite(.timeLimit(.minutes(10)))
struct MultiProcessTests {
    /// The `position id` lines of an ack file; a last line cut short by a kill is ignored.
    static func acknowledged(_ path: String) throws -> [(position: UInt64, id: UUID)] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines.removeLast()   // after the final newline: empty, or an unfinished line
        return try lines.map { line in
            let parts = line.split(separator: " ")
            let position = try #require(parts.count == 2 ? UInt64(parts[0]) : nil, "bad ack line '\(line)'")
            let id = try #require(UUID(uuidString: String(parts[1])), "bad ack line '\(line)'")
            return (position, id)
        }
    }

    @Test func twoProcessesAppendingAtOnceLoseAndDuplicateNothing() async throws {
        let torture = try Products.torture()
        try await TestStore.with { store in
            let perProcess = 1_500
            var children: [(tag: String, child: ChildProcess, acks: String)] = []
            for tag in ["A", "B"] {
                let acks = store.root.appendingPathComponent("acks-\(tag)").path
                // A 1 MiB initial map and 1 KB payloads: both processes grow the map and
                // adopt each other's growth while they append. A stream index checkpoint every
                // 100 events: both move it, and each must see the other's events and checkpoints
                // to number the shared streams' versions.
                let child = try await ChildProcess(torture, [
                    "append-burst", "--store", store.root.path, "--count", "\(perProcess)", "--batch", "3",
                    "--stream-prefix", "shared", "--streams", "5", "--tag", tag, "--concurrency", "2",
                    "--payload-bytes", "1000", "--map-size", "\(1 << 20)", "--ack-file", acks, "--wait-for-go",
                    "--stream-index-checkpoint", "100",
                ])
                children.append((tag, child, acks))
            }
            // Both have the store open before either appends.
            for (tag, child, _) in children {
                let ready = try await child.firstLine { $0 == "ready" }
                #expect(ready != nil, "writer \(tag) never became ready: \(child.standardErrorText)")
            }
            for (_, child, _) in children { try child.send("go") }
            for (tag, child, _) in children {
                let done = try await child.firstLine { $0.hasPrefix("done ") }
                let exit = try await withTimeout(.seconds(120), "writer \(tag) exit") { await child.waitForExit() }
                #expect(done != nil && exit == .init(status: 0, wasSignalled: false),
                        "writer \(tag) failed: \(child.standardErrorText)")
            }

            let total = 2 * perProcess
            try await store.withLog { log throws in
                let events = try log.read(after: 0, limit: total + 10)
                #expect(events.map(\.position) == Array(1...UInt64(total)))
                #expect(Set(events.map(\.id)).count == total)
                var acknowledged: [UUID: UInt64] = [:]
                for (_, _, acks) in children {
                    for ack in try Self.acknowledged(acks) { acknowledged[ack.id] = ack.position }
                }
                #expect(acknowledged.count == total)
                for event in events { #expect(acknowledged[event.id] == event.position) }
                for stream in 0..<5 {
                    let versions = try log.read(stream: "shared-\(stream)").map(\.version)
                    #expect(versions == Array(1...UInt64(versions.count)))
                }
                // The two writers really ran at the same time: their events interleave.
                let tags = events.map { String(decoding: $0.data.prefix(12), as: UTF8.self) }
                let switches = zip(tags, tags.dropFirst()).filter { $0 != $1 }.count
                #expect(switches > 1, "the writers' events did not interleave")
                #expect(Set(events.map(\.origin)).count == 1)   // one store, one device id
                let report = try log.verify()
                #expect(report.isIntact, "\(String(describing: report.problem))")
                #expect(report.eventsChecked == total)
            }
        }
    }

    @Test func aWriterKilledMidBurstLeavesAnIntactLogWithEveryAcknowledgedEvent() async throws {
        let torture = try Products.torture()
        try await TestStore.with { store in
            var everAcknowledged: [UUID: UInt64] = [:]
            // Three crashes in a row on one store, each after a different amount of work;
            // each new writer first recovers from the previous one's death. The stream index
            // moves its checkpoint every 64 events, so kills land between and during checkpoints.
            for (round, killAfter) in [40, 400, 1_500].enumerated() {
                let acks = store.root.appendingPathComponent("acks-\(round)").path
                let child = try await ChildProcess(torture, [
                    "append-burst", "--store", store.root.path, "--count", "1000000", "--batch", "2",
                    "--stream-prefix", "crash-\(round)", "--streams", "3", "--concurrency", "4",
                    "--ack-file", acks, "--echo-acks", "--stream-index-checkpoint", "64",
                ])
                let line = try await child.firstLine { line in
                    line.hasPrefix("acked ") && (Int(line.dropFirst(6)) ?? 0) >= killAfter
                }
                try #require(line != nil, "the writer stopped before \(killAfter) acks: \(child.standardErrorText)")
                child.kill()
                let exit = try await withTimeout(.seconds(60), "killed writer exit") { await child.waitForExit() }
                #expect(exit == .init(status: SIGKILL, wasSignalled: true), "the writer was not killed mid-burst")

                let acknowledged = try Self.acknowledged(acks)
                #expect(acknowledged.count >= killAfter)
                for ack in acknowledged { everAcknowledged[ack.id] = ack.position }
                try await store.withLog { log throws in
                    let report = try log.verify()
                    #expect(report.isIntact, "round \(round): \(String(describing: report.problem))")
                    for (id, position) in everAcknowledged {
                        #expect(try log.event(id: id)?.position == position, "acknowledged event \(id) is missing")
                    }
                    #expect(try log.head() >= UInt64(everAcknowledged.count))
                    for stream in 0..<3 {
                        let versions = try log.read(stream: "crash-\(round)-\(stream)").map(\.version)
                        #expect(!versions.isEmpty && versions == Array(1...UInt64(versions.count)))
                        #expect(try log.version(of: "crash-\(round)-\(stream)") == UInt64(versions.count))
                    }
                    // The store takes new appends after the crash.
                    let after = try await log.append(to: "after-crash-\(round)", expected: .noStream, events: [makeEvent()])
                    #expect(after.positions == [report.head + 1])
                }
            }
        }
    }

    @Test func aSubscriberSeesAnotherProcesssAppends() async throws {
        let torture = try Products.torture()
        try await TestStore.with { store in
            try await store.withLog(.init(pollInterval: .milliseconds(20))) { log throws in
                try await log.append(to: "local", events: [makeEvent()])
                let child = try await ChildProcess(torture, [
                    "append-burst", "--store", store.root.path, "--count", "30", "--batch", "4", "--stream-prefix", "remote",
                ])
                let positions = try await withTimeout(.seconds(120), "cross-process subscription") {
                    var positions: [UInt64] = []
                    for try await event in log.subscribe(after: 0) {
                        positions.append(event.position)
                        if positions.count == 31 { break }
                    }
                    return positions
                }
                let exit = try await withTimeout(.seconds(60), "writer exit") { await child.waitForExit() }
                #expect(exit.status == 0, "\(child.standardErrorText)")
                #expect(positions == Array(1...31))
                #expect(try log.read(after: 1, limit: 100).allSatisfy { $0.type == "BurstEvent" })
            }
        }
    }

    /// Another process's touches reach this one's conditions: those in its `touch-log` entries,
    /// and, once it moved the touches' checkpoint (every 2 events here), those in `touches`.
    @Test func anotherProcesssTouchesHoldThisOnesConditions() async throws {
        let torture = try Products.torture()
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let first = try await log.append([StreamAppend(stream: "local", events: [makeEvent()])], keys: [.touch("k")])
                #expect(try log.lastTouch(of: "k") == first.head)   // read into this process's table
                for (count, checkpoint) in [(1, "1000"), (5, "2")] {
                    let child = try await ChildProcess(torture, [
                        "append-burst", "--store", store.root.path, "--count", "\(count)", "--stream-prefix", "remote",
                        "--touch", "k", "--stream-index-checkpoint", checkpoint,
                    ])
                    let exit = try await withTimeout(.seconds(60), "writer exit") { await child.waitForExit() }
                    #expect(exit.status == 0, "\(child.standardErrorText)")
                    let head = try log.head()
                    #expect(try log.lastTouch(of: "k") == head, "after \(count) remote appends")
                    await #expect(throws: EventLogError.keyConflict(key: "k", reason: "touched at position \(head), after \(head - 1)")) {
                        try await log.append([StreamAppend(stream: "local", events: [makeEvent()])], keys: [.unchanged("k", since: head - 1)])
                    }
                }
            }
        }
    }

    @Test func tortureTailFollowsThisProcesssAppends() async throws {
        let torture = try Products.torture()
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "first", events: [makeEvent(), makeEvent()])
                let child = try await ChildProcess(torture, ["tail", "--store", store.root.path, "--after", "1", "--count", "4"])
                #expect(try await child.firstLine { $0 == "ready" } != nil, "\(child.standardErrorText)")
                let appended = try await log.append(to: "second", events: [makeEvent(), makeEvent(), makeEvent()])
                let lines = try await withTimeout(.seconds(120), "ChronicleTorture tail") {
                    var lines: [String] = []
                    for await line in child.lines { lines.append(line) }
                    return lines
                }
                let exit = try await withTimeout(.seconds(60), "tail exit") { await child.waitForExit() }
                #expect(exit.status == 0, "\(child.standardErrorText)")
                let stored = try log.read(after: 1, limit: 10)
                #expect(appended.positions == [3, 4, 5])
                #expect(lines == stored.map { "\($0.position) \($0.id.uuidString.lowercased())" })
            }
        }
    }

    @Test func tortureRefusesABadCommandLine() async throws {
        let torture = try Products.torture()
        let unknown = try await runCommand(torture, ["explode"])
        #expect(unknown.exit.status == 2)
        #expect(unknown.errorLines.first == "error: unknown command 'explode'")
        let missing = try await runCommand(torture, ["append-burst", "--count", "3"])
        #expect(missing.exit.status == 2)
        #expect(missing.errorLines.first == "error: --store is required")
    }
}

import ChronicleTestSupport
import ChronicleLog
import Foundation
import ChronicleLMDB
import Synchronization
import Testing

extension Reliability {
    /// LMDB at its limits: the map growing while readers hold transactions (in this process
    /// and in another), the reader table filling up, a writer dying with the write lock held.
    @Suite("LMDB limits", .timeLimit(.minutes(10)))
    struct LMDBLimitsTests {
        /// A flag threads poll.
        final class Flag: Sendable {
            private let value = Atomic(false)
            func raise() { value.store(true, ordering: .releasing) }
            var isRaised: Bool { value.load(ordering: .acquiring) }
        }

        static func key(_ n: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(n).bigEndian) { Array($0) } }

        @Test("the map grows many times while four threads keep read transactions open")
        func mapGrowsUnderReaders() async throws {
            try await TemporaryFolder.with("grow-readers") { path in
                let environment = try Environment(path: path, options: .init(mapSize: 256 << 10))
                let items = try environment.openDatabase(named: "items")
                let initial = environment.currentMapSize()
                let done = Flag()
                let valueSize = 16 << 10, count = 400

                // Each reader scans the whole database in one transaction, over and over, checking
                // every value it sees is whole; the entry count it sees never goes down.
                let readers = (0..<4).map { _ in
                    Task {
                        try await onThread { () -> (scans: Int, problems: [String]) in
                            var scans = 0, last = 0
                            var problems: [String] = []
                            while !done.isRaised || scans == 0 {
                                let seen = try environment.read { txn -> Int in
                                    var seen = 0
                                    try txn.withCursor(items) { cursor in
                                        var entry = try cursor.first()
                                        while let current = entry {
                                            let tag = current.key[3]
                                            if current.value.count != valueSize || current.value.first != tag || current.value.last != tag {
                                                problems.append("a torn value under key \(Array(current.key))")
                                            }
                                            seen += 1
                                            entry = try cursor.next()
                                        }
                                    }
                                    return seen
                                }
                                if seen < last { problems.append("saw \(seen) entries after \(last)") }
                                last = seen
                                scans += 1
                            }
                            return (scans, problems)
                        }
                    }
                }
                // The writer: one transaction per value, so the map fills and grows again and again.
                try await withTimeout(.seconds(120), "writing while readers hold the map") {
                    try await onThread {
                        defer { done.raise() }
                        for n in 0..<count {
                            try environment.write { txn in
                                try txn.put(items, key: Self.key(n), value: [UInt8](repeating: UInt8(truncatingIfNeeded: n), count: valueSize))
                            }
                        }
                    }
                }
                for reader in readers {
                    let (scans, problems) = try await withTimeout(.seconds(60), "a reader's end") { try await reader.value }
                    #expect(scans > 0)
                    #expect(problems.isEmpty, "\(problems.prefix(3))")
                }
                #expect(environment.currentMapSize() >= initial * 16, "the map grew from \(initial) to \(environment.currentMapSize())")
                #expect(try environment.read { txn in try txn.count(items) } == count)
            }
        }

        @Test("an event log grows its map while subscribers tail it and verify scans it")
        func logGrowsUnderSubscribersAndVerify() async throws {
            try await TemporaryFolder.with("grow-log") { path in
                let log = try EventLog(path: path, options: .init(initialMapSize: 128 << 10, noSync: true, pollInterval: .milliseconds(10)))
                defer { log.close() }
                let initial = log.environment.currentMapSize()
                let writers = 4, appends = 100, perAppend = 2
                let total = writers * appends * perAppend
                let pad = String(repeating: "p", count: 3000)
                let done = Flag()

                let subscribers = (0..<2).map { _ in
                    Task {
                        var positions: [UInt64] = []
                        for try await event in log.subscribe(after: 0, batchSize: 37) {
                            positions.append(event.position)
                            if positions.count == total { break }
                        }
                        return positions
                    }
                }
                let verifier = Task {
                    try await onThread { () -> Int in
                        var passes = 0
                        while !done.isRaised || passes == 0 {
                            let report = try log.verify()
                            guard report.isIntact else { throw TestFailure("verify: \(String(describing: report.problem))") }
                            passes += 1
                        }
                        return passes
                    }
                }
                try await withTimeout(.seconds(120), "appending while the log is read") {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for writer in 0..<writers {
                            group.addTask {
                                for n in 0..<appends {
                                    let events = (0..<perAppend).map { _ in NewEvent(type: "Grown", data: Data(#"{"w":\#(writer),"n":\#(n),"pad":"\#(pad)"}"#.utf8)) }
                                    try await log.append(to: "grow-\(writer)", expected: n == 0 ? .noStream : .exact(UInt64(n * perAppend)), events: events)
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }
                done.raise()
                for subscriber in subscribers {
                    let positions = try await withTimeout(.seconds(60), "a subscriber") { try await subscriber.value }
                    #expect(positions == (1...UInt64(total)).map { $0 })
                }
                #expect(try await withTimeout(.seconds(60), "the verifier") { try await verifier.value } > 0)
                #expect(log.environment.currentMapSize() > initial * 4)
                #expect(try log.verify().eventsChecked == total)
            }
        }

        @Test("another process's open read transaction does not stop this one growing the map, and sees the result")
        func mapGrowsUnderAnotherProcesssReader() async throws {
            let torture = try Products.torture()
            try await TemporaryFolder.with("grow-other") { path in
                let environment = try Environment(path: path, options: .init(mapSize: 256 << 10))
                let items = try environment.openDatabase(named: "items")
                try environment.write { txn in try txn.put(items, key: Self.key(0), value: [0]) }
                let holder = try await ChildProcess(torture, ["hold", "--env", path, "--txn", "read", "--database", "items"])
                #expect(try await holder.firstLine { $0 == "holding" } != nil, "\(holder.standardErrorText)")
                let initial = environment.currentMapSize()
                try await withTimeout(.seconds(120), "growing the map under another process's reader") {
                    try await onThread {
                        for n in 1..<300 {
                            try environment.write { txn in try txn.put(items, key: Self.key(n), value: [UInt8](repeating: 7, count: 16 << 10)) }
                        }
                    }
                }
                #expect(environment.currentMapSize() >= initial * 8)
                try holder.send("release")
                // The other process adopts the grown map on its next transaction and sees every entry.
                let entries = try await holder.firstLine { $0.hasPrefix("entries ") }
                #expect(entries == "entries 300", "\(holder.standardErrorText)")
                #expect(await holder.waitForExit() == .init(status: 0, wasSignalled: false))
            }
        }

        @Test("a full reader table: a clear error while its holders live, cleared once they are killed")
        func readerTableFull() async throws {
            let torture = try Products.torture()
            try await TemporaryFolder.with("readers-full") { path in
                // This process creates the lock file, so its four slots are the table's size.
                let environment = try Environment(path: path, options: .init(maxReaders: 4))
                let items = try environment.openDatabase(named: "items")
                try environment.write { txn in try txn.put(items, key: [1], value: [42]) }

                var holders: [ChildProcess] = []
                var refusal: CommandOutput?
                while refusal == nil && holders.count < 16 {
                    let holder = try await ChildProcess(torture, ["hold", "--env", path, "--txn", "read", "--max-readers", "4"])
                    let held = try await holder.firstLine(where: { $0 == "holding" })
                    if held != nil {
                        holders.append(holder)
                    } else {
                        let exit = await holder.waitForExit()
                        refusal = CommandOutput(exit: exit, standardOutputText: "", standardError: holder.standardErrorText)
                    }
                }
                #expect(holders.count == 4, "\(holders.count) readers fitted in a table of 4")
                let refused = try #require(refusal, "the reader table never filled up")
                #expect(refused.exit == .init(status: 1, wasSignalled: false))
                #expect(refused.errorLines.first?.hasPrefix("error: too many open readers on the store") == true, "\(refused.standardError)")
                // While the holders live, this process gets the same clear error, not a hang.
                #expect(throws: LMDBError.readersFull) { try environment.read { txn in try txn.get(items, key: [1]).map(Array.init) } }

                for holder in holders { holder.kill() }
                for holder in holders { #expect(await holder.waitForExit().wasSignalled) }
                // The dead readers' slots are cleared (mdb_reader_check) and the read goes through.
                #expect(try environment.read { txn in try txn.get(items, key: [1]).map(Array.init) } == [42])
                let next = try await ChildProcess(torture, ["hold", "--env", path, "--txn", "read"])
                #expect(try await next.firstLine { $0 == "holding" } != nil, "\(next.standardErrorText)")
                try next.send("release")
                #expect(await next.waitForExit() == .init(status: 0, wasSignalled: false))
            }
        }

        @Test("a writer killed while holding the write lock does not block the next writer")
        func writerKilledHoldingTheWriteLock() async throws {
            let torture = try Products.torture()
            try await TemporaryFolder.with("dead-writer") { path in
                let environment = try Environment(path: path)
                let items = try environment.openDatabase(named: "items")
                let holder = try await ChildProcess(torture, ["hold", "--env", path, "--txn", "write"])
                #expect(try await holder.firstLine { $0 == "holding" } != nil, "\(holder.standardErrorText)")
                holder.kill()
                #expect(await holder.waitForExit().wasSignalled)
                // LMDB's write mutex is robust: the next locker recovers it from the dead owner.
                try await withTimeout(.seconds(60), "a write after the lock holder died") {
                    try await onThread { try environment.write { txn in try txn.put(items, key: [1], value: [1]) } }
                }
                #expect(try environment.read { txn in try txn.count(items) } == 1)
            }
        }
    }
}

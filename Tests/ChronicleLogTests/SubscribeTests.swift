import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

@Suite(.timeLimit(.minutes(10)))
struct SubscribeTests {
    /// A poll interval far beyond every test's guard: only this process's head signal can
    /// wake a waiting tail, so a missed wake-up fails the test instead of passing late.
    static let noPolling = EventLog.Options(pollInterval: .seconds(3600))

    @Test func yieldsCatchUpThenLiveEventsInOrder() async throws {
        try await TestStore.with { store in
            try await store.withLog(Self.noPolling) { log throws in
                for n in 1...5 { try await log.append(to: "s-\(n % 2)", events: [makeEvent("Old", #"{"n":\#(n)}"#)]) }
                // The subscriber reports each position it receives; the appender adds the next
                // live event only after the previous one arrived, so each live event lands
                // while the subscriber is (or is about to be) waiting for it.
                let (received, report) = AsyncStream.makeStream(of: UInt64.self, bufferingPolicy: .unbounded)
                let positions = try await withTimeout(.seconds(60), "catch-up then live subscription") {
                    try await withThrowingTaskGroup(of: [UInt64].self) { group in
                        group.addTask {
                            var positions: [UInt64] = []
                            for try await event in log.subscribe(after: 2) {
                                positions.append(event.position)
                                report.yield(event.position)
                                if positions.count == 8 { break }
                            }
                            report.finish()
                            return positions
                        }
                        group.addTask {
                            var appended = 0
                            for await position in received where position >= 5 && appended < 5 {
                                appended += 1
                                try await log.append(to: "live", events: [makeEvent("New", #"{"n":\#(5 + appended)}"#)])
                            }
                            return []
                        }
                        var all: [UInt64] = []
                        for try await part in group { all += part }
                        return all
                    }
                }
                #expect(positions == Array(3...10))
                let types = try log.read(after: 2, limit: 8).map(\.type)
                #expect(types == ["Old", "Old", "Old", "New", "New", "New", "New", "New"])
            }
        }
    }

    @Test func manyLiveAppendsArriveOnceAndInOrder() async throws {
        try await TestStore.with { store in
            try await store.withLog(Self.noPolling) { log throws in
                let count = 2_000
                let received = try await withTimeout(.seconds(120), "2,000 live events") {
                    try await withThrowingTaskGroup(of: [UInt64].self) { group in
                        group.addTask {
                            var positions: [UInt64] = []
                            for try await event in log.subscribe(after: 0, batchSize: 64) {
                                positions.append(event.position)
                                if positions.count == count { break }
                            }
                            return positions
                        }
                        group.addTask {
                            // Four concurrent appenders: group commits of varying sizes.
                            try await withThrowingTaskGroup(of: Void.self) { appenders in
                                for task in 0..<4 {
                                    appenders.addTask {
                                        for n in 0..<(count / 4) {
                                            try await log.append(to: "t-\(task)", events: [makeEvent("N", #"{"n":\#(n)}"#)])
                                        }
                                    }
                                }
                                try await appenders.waitForAll()
                            }
                            return []
                        }
                        var all: [UInt64] = []
                        for try await part in group { all += part }
                        return all
                    }
                }
                #expect(received == Array(1...UInt64(count)))
            }
        }
    }

    @Test func batchSubscriptionCoversEverythingInOrder() async throws {
        try await TestStore.with { store in
            try await store.withLog(Self.noPolling) { log throws in
                try await log.append(to: "s", events: (0..<25).map { _ in makeEvent() })
                let positions = try await withTimeout(.seconds(60), "batch subscription") {
                    try await withThrowingTaskGroup(of: [UInt64].self) { group in
                        group.addTask {
                            var positions: [UInt64] = []
                            for try await batch in log.subscribeBatches(after: 3, batchSize: 10) {
                                #expect(!batch.isEmpty && batch.count <= 10)
                                positions += batch.map(\.position)
                                if positions.last == 25 {   // caught up: add live events
                                    try await log.append(to: "s", events: [makeEvent(), makeEvent(), makeEvent()])
                                }
                                if positions.count == 25 { break }
                            }
                            return positions
                        }
                        return try await group.next() ?? []
                    }
                }
                #expect(positions == Array(4...28))
            }
        }
    }

    @Test func batchSubscriptionBatchesEndAtTheirBytes() async throws {
        try await TestStore.with { store in
            try await store.withLog(Self.noPolling) { log throws in
                // 20 events of 7 bytes of data (`{"k":1}`): 3 fit in 21 bytes.
                try await log.append(to: "s", events: (0..<20).map { _ in makeEvent() })
                let sizes = try await withTimeout(.seconds(60), "byte-bounded batches") {
                    var sizes: [Int] = []
                    for try await batch in log.subscribeBatches(after: 0, batchSize: 10, maxBytes: 21) {
                        sizes.append(batch.count)
                        if sizes.reduce(0, +) == 20 { break }
                    }
                    return sizes
                }
                #expect(sizes == [3, 3, 3, 3, 3, 3, 2])
            }
        }
    }

    @Test func aCancelledSubscriptionEnds() async throws {
        try await TestStore.with { store in
            try await store.withLog(Self.noPolling) { log throws in
                try await log.append(to: "s", events: [makeEvent()])
                let (started, signalStarted) = AsyncStream.makeStream(of: Void.self)
                let tail = Task {
                    var count = 0
                    for try await _ in log.subscribe() {
                        count += 1
                        signalStarted.yield()
                    }
                    return count   // reached only when the sequence ends
                }
                for await _ in started { break }
                tail.cancel()
                let count = try await withTimeout(.seconds(60), "cancelled subscription") { try await tail.value }
                #expect(count == 1)
            }
        }
    }

    @Test func waitForHeadReturnsOnceTheLogGrows() async throws {
        try await TestStore.with { store in
            try await store.withLog(Self.noPolling) { log throws in
                try await log.append(to: "s", events: [makeEvent()])
                #expect(try await log.waitForHead(beyond: 0, timeout: .seconds(3600)) == 1)
                let head = try await withTimeout(.seconds(60), "waitForHead") {
                    try await withThrowingTaskGroup(of: UInt64?.self) { group in
                        group.addTask { try await log.waitForHead(beyond: 1, timeout: .seconds(3600)) }
                        group.addTask {
                            try await log.append(to: "s", events: [makeEvent()])
                            return nil
                        }
                        var head: UInt64?
                        for try await value in group where value != nil { head = value }
                        return head
                    }
                }
                #expect(head == 2)
            }
        }
    }
}

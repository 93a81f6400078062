import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

@Suite(.timeLimit(.minutes(10)))
struct ConcurrencyTests {
    /// After a commit of many appenders' jobs, the writer waits a little for as many to come
    /// back before it commits again. When only one comes back, the wait ends by itself: each of
    /// its appends still commits, and none waits on another that never comes.
    @Test(.timeLimit(.minutes(5))) func aLoneAppenderAfterAGroupStillCommits() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                for round in 0..<3 {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for task in 0..<8 {
                            group.addTask { try await log.append(to: "crowd-\(task)", events: [makeEvent()]) }
                        }
                        try await group.waitForAll()
                    }
                    for n in 1...20 {
                        let result = try await log.append(to: "lone", events: [makeEvent()])
                        #expect(result.positions == [UInt64(round * 28 + 8 + n)])
                    }
                }
                #expect(try log.head() == 84)
                #expect(try log.version(of: "lone") == 60)
            }
        }
    }

    /// Eight tasks append a thousand single-event batches each, to five shared streams.
    @Test func eightTasksTimesAThousandAppendsAreGapFreeAndContiguous() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let tasks = 8, perTask = 1000, streams = 5
                let results = try await withThrowingTaskGroup(of: [(UUID, String, UInt64)].self) { group in
                    for task in 0..<tasks {
                        group.addTask {
                            var mine: [(UUID, String, UInt64)] = []
                            for n in 0..<perTask {
                                let event = makeEvent("Counted", #"{"task":\#(task),"n":\#(n)}"#)
                                let stream = "stream-\((task + n) % streams)"
                                let result = try await log.append(to: stream, events: [event])
                                mine.append((event.id, stream, result.positions[0]))
                            }
                            return mine
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                let total = tasks * perTask
                #expect(results.count == total)
                // Every acknowledged position is distinct, and together they are exactly 1…8000.
                #expect(results.map(\.2).sorted() == Array(1...UInt64(total)))
                #expect(try log.head() == UInt64(total))

                let stored = try log.read(after: 0, limit: total + 10)
                #expect(stored.map(\.position) == Array(1...UInt64(total)))
                #expect(Set(stored.map(\.id)).count == total)
                let byID = Dictionary(uniqueKeysWithValues: stored.map { ($0.id, $0) })
                for (id, stream, position) in results {
                    #expect(byID[id]?.position == position)
                    #expect(byID[id]?.stream == stream)
                }
                // Each stream's versions run 1, 2, 3, … in position order, without a gap.
                for index in 0..<streams {
                    let events = stored.filter { $0.stream == "stream-\(index)" }
                    #expect(events.map(\.version) == Array(1...UInt64(events.count)))
                    #expect(try log.read(stream: "stream-\(index)").map(\.id) == events.map(\.id))
                    #expect(try log.version(of: "stream-\(index)") == UInt64(events.count))
                }
                // Each task's own appends landed in the order it made them.
                let verified = try log.verify()
                #expect(verified.isIntact)
                #expect(verified.eventsChecked == total)
            }
        }
    }

    @Test func concurrentBatchesAcrossStreamsStayWhole() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                // Each batch writes three events to three streams; no other event may land between them.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for task in 0..<6 {
                        group.addTask {
                            for n in 0..<50 {
                                let tag = #"{"batch":"\#(task)-\#(n)"}"#
                                _ = try await log.append([
                                    StreamAppend(stream: "p-\(task)", events: [makeEvent("Part", tag)]),
                                    StreamAppend(stream: "q-\(n % 3)", events: [makeEvent("Part", tag)]),
                                    StreamAppend(stream: "r", events: [makeEvent("Part", tag)]),
                                ])
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let stored = try log.read(after: 0, limit: 10_000)
                #expect(stored.count == 900)
                for start in stride(from: 0, to: stored.count, by: 3) {
                    let tags = Set(stored[start..<start + 3].map(\.data))
                    #expect(tags.count == 1, "batch at position \(start + 1) was split")
                }
                #expect(try log.read(stream: "r").map(\.version) == Array(1...300))
            }
        }
    }
}

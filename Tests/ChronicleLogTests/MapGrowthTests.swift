import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

@Suite(.timeLimit(.minutes(10)))
struct MapGrowthTests {
    @Test func theMapGrowsPastItsInitialSizeWithoutAnError() async throws {
        try await TestStore.with { store in
            let initial = 1 << 20
            let padding = String(repeating: "p", count: 10_000)
            let (grownTo, head) = try await store.withLog(.init(initialMapSize: initial)) { log throws in
                // ~10 MB in 100 batches of ten 10 KB events: the map must grow several times.
                for batch in 0..<100 {
                    let events = (0..<10).map { n in makeEvent("Big", #"{"batch":\#(batch),"n":\#(n),"pad":"\#(padding)"}"#) }
                    try await log.append(to: "big-\(batch % 7)", events: events)
                }
                return (log.environment.currentMapSize(), try log.head())
            }
            #expect(head == 1000)
            #expect(grownTo >= 10_000_000)
            #expect(grownTo > initial)
            // Reopened with the small initial size, the store is whole and keeps growing.
            try await store.withLog(.init(initialMapSize: initial)) { log throws in
                #expect(log.environment.currentMapSize() >= 10_000_000)
                let events = try log.read(after: 0, limit: 2_000)
                #expect(events.count == 1000)
                #expect(events.allSatisfy { $0.data.count > 10_000 })
                let report = try log.verify()
                #expect(report.isIntact)
                for batch in 0..<20 {
                    let events = (0..<10).map { n in makeEvent("Big", #"{"more":\#(batch),"n":\#(n),"pad":"\#(padding)"}"#) }
                    try await log.append(to: "more", events: events)
                }
                #expect(try log.head() == 1200)
                #expect(try log.verify().isIntact)
            }
        }
    }

    @Test func oneBatchLargerThanTheWholeMapStillCommits() async throws {
        try await TestStore.with { store in
            try await store.withLog(.init(initialMapSize: 1 << 20)) { log throws in
                let padding = String(repeating: "q", count: 100_000)
                let events = (0..<40).map { n in makeEvent("Huge", #"{"n":\#(n),"pad":"\#(padding)"}"#) }
                let result = try await log.append(to: "huge", events: events)   // 4 MB in one transaction
                #expect(result.positions == Array(1...40))
                #expect(try log.read(stream: "huge").count == 40)
                #expect(try log.verify().isIntact)
            }
        }
    }
}

import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing

/// Not a test: fills a store with CHRONICLE_BENCHMARK events (e.g. 1000000) at
/// CHRONICLE_BENCHMARK_STORE (or a temporary folder, removed afterwards) and rebuilds it,
/// printing the speed. Time `chronicle rebuild --store …` from a release build for real numbers.
@Suite("rebuild benchmark", .enabled(if: ProcessInfo.processInfo.environment["CHRONICLE_BENCHMARK"] != nil), .timeLimit(.minutes(20)))
struct RebuildBenchmarkTests {
    @Test("fill a store and rebuild it")
    func benchmark() async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = UInt64(environment["CHRONICLE_BENCHMARK"] ?? "") ?? 1_000_000
        let keep = environment["CHRONICLE_BENCHMARK_STORE"]
        let store = try TestStore(directory: keep)
        var random = SeededGenerator(seed: 1)
        let first = day("2026-01-01")
        var batch: [StreamAppend] = []
        var appended: UInt64 = try store.log.head()
        func add(_ event: DomainEvent) { batch.append(StreamAppend(stream: event.stream, events: [NewEvent(type: event.type, data: event.encodedData())])) }
        while appended < count {
            // Ten events: a user with four todos; two move, two are completed, one is deleted.
            let user = UUIDv7.make()
            add(.userCreated(id: user, name: "User \(random.next() % 100_000)", age: Int(random.next() % 100)))
            var todos: [UUID] = []
            for index in 0..<4 {
                let id = UUIDv7.make()
                todos.append(id)
                add(.todoCreated(id: id, title: "Todo \(index)", deadline: first.adding(days: Int(random.next() % 365)),
                                 userId: user, memo: index == 0 ? "memo" : nil))
            }
            add(.todoUpdated(id: todos[0], title: nil, deadline: first.adding(days: Int(random.next() % 365)), memo: nil))
            add(.todoUpdated(id: todos[1], title: "Renamed", deadline: first.adding(days: Int(random.next() % 365)), memo: nil))
            add(.todoCompleted(id: todos[1]))
            add(.todoCompleted(id: todos[2]))
            add(.todoDeleted(id: todos[3]))
            if batch.count >= 10_000 {
                appended = try await store.log.append(batch).head
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { appended = try await store.log.append(batch).head }
        let summary = try await Rebuild.run(log: store.log, models: store.models)
        print("rebuild: \(summary.eventsRead) events in \(summary.elapsed) = \(Int(summary.eventsPerSecond)) events/s (debug build)")
        if keep == nil { await store.cleanup() } else { await store.runner.stop(); store.log.close() }
    }
}

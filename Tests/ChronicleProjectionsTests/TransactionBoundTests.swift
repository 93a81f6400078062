import ChronicleTestSupport
import Foundation
@testable import ChronicleProjections
import Synchronization
import Testing

@Suite("a large build's transactions end at the entities its models hold", .timeLimit(.minutes(10)))
struct TransactionBoundTests {
    @Test("a transaction folds another chunk until its events, one model's held entities, or the bytes folded and loaded reach the bound")
    func allowsMore() {
        let bound = TransactionBound(events: 1_000, heldEntities: 50, heldBytes: 4_096)
        #expect(bound.allowsMore(afterEvents: 0, bytes: 0, held: [0, 0], loaded: [0, 0]))
        #expect(bound.allowsMore(afterEvents: 999, bytes: 4_000, held: [49, 12], loaded: [90, 5]))
        #expect(!bound.allowsMore(afterEvents: 1_000, bytes: 0, held: [0, 0], loaded: [0, 0]))
        #expect(!bound.allowsMore(afterEvents: 10, bytes: 0, held: [3, 50], loaded: [0, 0]))
        #expect(!bound.allowsMore(afterEvents: 10, bytes: 0, held: [51, 0], loaded: [0, 0]))
        #expect(!bound.allowsMore(afterEvents: 10, bytes: 4_096, held: [3, 0], loaded: [0, 0]))
        #expect(!bound.allowsMore(afterEvents: 10, bytes: 4_000, held: [3, 0], loaded: [90, 6]), "loaded bytes count with the folded")
        #expect(TransactionBound.events(10).heldBytes == TransactionBound.build.heldBytes)
    }

    @Test("a model makes room for the held bound and one chunk more, never more than the events")
    func entitiesToReserve() {
        #expect(TransactionBound(events: 1_000_000, heldEntities: 500).entitiesToReserve(chunkSize: 100) == 600)
        #expect(TransactionBound(events: 300, heldEntities: 500).entitiesToReserve(chunkSize: 100) == 300)
        #expect(TransactionBound(events: .max, heldEntities: .max).entitiesToReserve(chunkSize: 100) == .max)
        #expect(TransactionBound.events(0).events == 1)
    }

    @Test("a rebuild bounded by held entities commits several transactions, fewer when each after the first writes two overlays; the same bytes as the incremental models")
    func rebuildEndsTransactionsAtHeldEntities() async throws {
        try await withStore { store in
            var workload = Workload(test: "TransactionBoundTests.1")
            try await store.append(from: &workload, untilHead: 3_000)
            // Whole commands: the head may pass 3,000 by a few events, by the seed.
            let head = try store.log.head()
            try await store.runner.catchUp()
            let incremental = try store.contents()
            var steps: [[UInt64]] = []
            // No bound on events: only the entities the models hold end an overlay.
            for overlays in [1, 2] {
                let done = Steps()
                let summary = try await Rebuild.run(log: store.log, models: store.models, projections: ProjectionName.allCases,
                                                    bound: TransactionBound(events: .max, heldEntities: 150, overlays: overlays),
                                                    mode: .fresh, readAhead: 100) { done.add($0.done) }
                #expect(summary.position == head)
                #expect(summary.transactionsRunAgain == 0)
                #expect(try store.contents() == incremental, "\(overlays) overlays a transaction")
                steps.append(done.values)
            }
            let (one, two) = (steps[0], steps[1])
            #expect(one.count >= 5, "\(one)")
            #expect(two.first == one.first, "the first transaction writes one overlay: nothing foretells its room yet")
            #expect(two.count < one.count && two.count >= (one.count + 1) / 2, "\(one) against \(two)")
            #expect(two.count > 1 && two[1] > one[1], "the second writes two: \(one) against \(two)")
        }
    }

    @Test("todos with large memos: the read-ahead's chunks end at their bytes, and so do the transactions; the same bytes as the incremental models")
    func largeEventsBoundChunksAndTransactionsByBytes() async throws {
        try await withStore { store in
            let memo = String(repeating: "m", count: 48 << 10)
            for n in 0..<160 {
                try await store.append([.todoCreated(id: UUID(), title: "Todo \(n)", deadline: day("2026-06-01"), userId: nil,
                                                     memo: memo)])
            }
            try await store.runner.catchUp()
            let incremental = try store.contents()
            // The live models' batches end at their bytes too: 21 events of 48 KiB in 1 MiB.
            let batch = try await LogPrefetcher(log: store.log, batchSize: 1_000, batchBytes: 1 << 20).batch(after: 0).value
            #expect(batch?.count == 21)
            #expect(batch.map { $0.bytes > 1_000_000 && $0.bytes <= 1 << 20 } == true)
            // 7.5 MiB of memos in chunks of 10,000 events but 2 MiB at most: four chunks, each a transaction.
            let chunks = Counter()
            _ = try await Rebuild.run(log: store.log, models: store.models, projections: ProjectionName.allCases,
                                      bound: TransactionBound(events: .max, heldEntities: .max, heldBytes: 1), mode: .fresh) { _ in
                chunks.increment()
            }
            #expect(ChunkReadAheadDefaults.chunkBytes == 2 << 20)
            #expect(chunks.value == 4, "\(chunks.value) chunks")
            #expect(try store.contents() == incremental)
            // Chunks of 64 KiB (one event each), transactions ending at 1 MiB of them: 21 or 22 events each.
            let steps = Counter()
            _ = try await Rebuild.run(log: store.log, models: store.models, projections: ProjectionName.allCases,
                                      bound: TransactionBound(events: .max, heldEntities: .max, heldBytes: 1 << 20), mode: .fresh,
                                      readAheadBytes: 64 << 10) { _ in steps.increment() }
            #expect(steps.value == 8, "\(steps.value) transactions")
            #expect(try store.contents() == incremental)
        }
    }

    @Test("a backlog caught up in transactions bounded by held entities gives the same bytes as batch by batch, with one overlay a transaction or two")
    func backlogEndsTransactionsAtHeldEntities() async throws {
        try await withStore { store in
            var workload = Workload(test: "TransactionBoundTests.2")
            try await store.append(from: &workload, untilHead: 6_000)
            let head = try store.log.head()   // whole commands: 6,000 or a few events past it
            #expect(try await store.runner.catchUp() == head)
            var used: [Int] = []
            for overlays in [1, 2] {
                let models = try ReadModels(path: store.directory + "/models-held-\(overlays)", options: .init(noSync: true, initialMapSize: 64 << 10))
                let runner = ProjectionRunner(log: store.log, models: models, batchSize: 500,
                                              largeTransactions: TransactionBound(events: .max, heldEntities: 150, overlays: overlays))
                #expect(try await runner.catchUp() == head)
                #expect(try models.contents() == store.contents(), "\(overlays) overlays a transaction")
                used.append(models.environment.usedSize())
            }
            #expect(used[1] < used[0], "a second overlay goes into pages the first one copied: \(used)")
        }
    }
}

/// A count that a `@Sendable` progress closure can bump.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

/// The `done` of each progress report, in order.
private final class Steps: @unchecked Sendable {
    // Thread rules: `stored` is read and written only with `lock` held.
    private let lock = NSLock()
    private var stored: [UInt64] = []

    var values: [UInt64] { lock.withLock { stored } }
    func add(_ value: UInt64) { lock.withLock { stored.append(value) } }
}

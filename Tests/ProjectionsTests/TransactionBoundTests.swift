import ChronicleTestSupport
import Foundation
@testable import Projections
import Synchronization
import Testing

@Suite("a large build's transactions end at the entities its models hold", .timeLimit(.minutes(5)))
struct TransactionBoundTests {
    @Test("a transaction folds another chunk until its events or one model's held entities reach the bound")
    func allowsMore() {
        let bound = TransactionBound(events: 1_000, heldEntities: 50)
        #expect(bound.allowsMore(afterEvents: 0, held: [0, 0]))
        #expect(bound.allowsMore(afterEvents: 999, held: [49, 12]))
        #expect(!bound.allowsMore(afterEvents: 1_000, held: [0, 0]))
        #expect(!bound.allowsMore(afterEvents: 10, held: [3, 50]))
        #expect(!bound.allowsMore(afterEvents: 10, held: [51, 0]))
    }

    @Test("a model makes room for the held bound and one chunk more, never more than the events")
    func entitiesToReserve() {
        #expect(TransactionBound(events: 1_000_000, heldEntities: 500).entitiesToReserve(chunkSize: 100) == 600)
        #expect(TransactionBound(events: 300, heldEntities: 500).entitiesToReserve(chunkSize: 100) == 300)
        #expect(TransactionBound(events: .max, heldEntities: .max).entitiesToReserve(chunkSize: 100) == .max)
        #expect(TransactionBound.events(0).events == 1)
    }

    @Test("a rebuild bounded by held entities commits several transactions and builds the same bytes as the incremental models")
    func rebuildEndsTransactionsAtHeldEntities() async throws {
        try await withStore { store in
            var workload = Workload(seed: 0x5EED_0013)
            try await store.append(from: &workload, untilHead: 3_000)
            try await store.runner.catchUp()
            let incremental = try store.contents()
            let steps = Counter()
            // No bound on events: only the entities the models hold end a transaction.
            let summary = try await Rebuild.run(log: store.log, models: store.models, projections: ProjectionName.allCases,
                                                bound: TransactionBound(events: .max, heldEntities: 150), mode: .fresh,
                                                readAhead: 100) { _ in steps.increment() }
            #expect(summary.position == 3_000)
            #expect(steps.value >= 4, "\(steps.value) transactions")
            #expect(try store.contents() == incremental)
        }
    }

    @Test("a backlog caught up in transactions bounded by held entities gives the same bytes as batch by batch")
    func backlogEndsTransactionsAtHeldEntities() async throws {
        try await withStore { store in
            var workload = Workload(seed: 0x5EED_0014)
            try await store.append(from: &workload, untilHead: 6_000)
            let models = try ReadModels(path: store.directory + "/models-held", options: .init(noSync: true, initialMapSize: 64 << 10))
            let runner = ProjectionRunner(log: store.log, models: models, batchSize: 500,
                                          largeTransactions: TransactionBound(events: .max, heldEntities: 150))
            #expect(try await runner.catchUp() == 6_000)
            #expect(try await store.runner.catchUp() == 6_000)
            #expect(try models.contents() == store.contents())
        }
    }
}

/// A count that a `@Sendable` progress closure can bump.
private final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

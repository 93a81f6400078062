/// When a write transaction of a large build ends (a rebuild's, a version upgrade's, a
/// backlog's): after the chunk that brings it to either bound.
///
/// Every commit rewrites each page its transaction touched, and a build's transaction touches
/// nearly every page of the models (ids, days and users spread its writes over the whole key
/// space), so the number of transactions, not of events, sets how much a build writes. What a
/// transaction holds in memory is its overlay of touched entities, so that is what bounds it;
/// the count of events bounds only a transaction of few entities (how long it runs, how often
/// progress is reported). A rebuild of 1,000,000 events in transactions of 75,000 events
/// committed 14 times, each holding about 50,000 todos; bounded by 128,000 entities it commits
/// 4 times (peak memory 65 → 108 MiB: about 0.6 KiB per todo, which two models hold).
struct TransactionBound: Sendable, Equatable {
    /// The most events a transaction folds.
    var events: Int
    /// The most entities one model's overlay holds before the transaction ends.
    var heldEntities: Int

    /// A rebuild's, an upgrade's and a backlog's bound unless a caller says otherwise.
    static let build = TransactionBound(events: 500_000, heldEntities: 128_000)

    /// `events` events at most, with the default bound on held entities.
    static func events(_ events: Int) -> TransactionBound {
        TransactionBound(events: max(1, events), heldEntities: build.heldEntities)
    }

    /// Whether a transaction that folded `events` and whose models hold `held` entities
    /// (each model's count) may fold another chunk.
    func allowsMore(afterEvents events: Int, held: some Sequence<Int>) -> Bool {
        events < self.events && held.allSatisfy { $0 < heldEntities }
    }

    /// The entities a model's overlay should make room for when a chunk holds up to
    /// `chunkSize` events: the bound, overshot by at most one chunk.
    func entitiesToReserve(chunkSize: Int) -> Int {
        let (withChunk, overflow) = heldEntities.addingReportingOverflow(chunkSize)
        return min(events, overflow ? .max : withChunk)
    }
}

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
/// 4 times (peak memory 65 → 108 MiB, when two models held a copy of each todo; 88 MiB since
/// the daily stats are counted from the todos).
///
/// Counts alone do not bound the bytes: a todo's memo may be megabytes. So a transaction also
/// ends once the data of the events it folded (their strings are what the entities they make
/// hold) and the stored entities its models loaded reach ``heldBytes``.
struct TransactionBound: Sendable, Equatable {
    /// The most events a transaction folds.
    var events: Int
    /// The most entities one model's overlay holds before the transaction ends.
    var heldEntities: Int
    /// The most bytes of event data folded and of stored entities loaded before the transaction ends.
    var heldBytes: Int = Self.defaultHeldBytes
    /// How many times a rebuild's or a backlog's transaction may write its overlays (each bounded
    /// as above) before it commits, once a transaction before it has shown how much one grows the
    /// map. A transaction copies each page it first touches, and a build's touches nearly every
    /// page of the models: a second overlay written into the pages the first one copied copies
    /// nothing.
    var overlays: Int = 1

    /// The benchmark's rebuild of 1,000,000 events (about 84 bytes of data an event) folds 18–26 MB
    /// of event data and loads under 4 MB of todos per transaction, so this bound leaves it alone;
    /// a log of large memos makes transactions of fewer events.
    static let defaultHeldBytes = 64 << 20

    /// A rebuild's, an upgrade's and a backlog's bound unless a caller says otherwise.
    static let build = TransactionBound(events: 500_000, heldEntities: 128_000, overlays: 2)

    /// `events` events at most, with the default bounds on what is held.
    static func events(_ events: Int) -> TransactionBound {
        TransactionBound(events: max(1, events), heldEntities: build.heldEntities, heldBytes: build.heldBytes)
    }

    /// Whether a transaction that folded `events` events with `bytes` of data, and whose models
    /// hold `held` entities (each model's count), having loaded `loaded` bytes of them, may fold another chunk.
    func allowsMore(afterEvents events: Int, bytes: Int, held: some Sequence<Int>, loaded: some Sequence<Int>) -> Bool {
        events < self.events && held.allSatisfy { $0 < heldEntities } && loaded.reduce(bytes, +) < heldBytes
    }

    /// How many overlays the next transaction of a run may write: ``overlays`` once `forecast` has
    /// seen a transaction of the run commit, else one (nothing foretells yet how much it grows the map).
    func overlays(foreseenBy forecast: MapGrowthForecast?) -> Int {
        forecast?.hasSeenATransaction == true ? max(1, overlays) : 1
    }

    /// The entities a model's overlay should make room for when a chunk holds up to
    /// `chunkSize` events: the bound, overshot by at most one chunk.
    func entitiesToReserve(chunkSize: Int) -> Int {
        let (withChunk, overflow) = heldEntities.addingReportingOverflow(chunkSize)
        return min(events, overflow ? .max : withChunk)
    }
}

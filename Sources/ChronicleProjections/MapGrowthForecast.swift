import Synchronization

/// How much room the next large write transaction of a run (a rebuild's batches, a backlog's)
/// needs in the models' map, foreseen from how much the ones before it grew the file.
///
/// LMDB aborts a write transaction that fills the map; the environment then grows the map and
/// runs all of the transaction's work again. A rebuild of 1,000,000 events grew the map three
/// times that way, each time folding up to 75,000 events twice (about a tenth of its time).
/// Growing it before a transaction starts, by the same steps, ends with the same file.
final class MapGrowthForecast: Sendable {
    /// The largest growth of the used part of the map one transaction of the run made so far;
    /// nil before the first.
    private let largestGrowth = Mutex<Int?>(nil)

    /// The room to make before the next transaction: twice the largest growth so far. A
    /// transaction of a growing model rewrites more pages than the one before it: the second
    /// of a build from empty copies nearly every page the first wrote and adds its own (with
    /// transactions of 128,000 entities, about 1.8 times the first's growth; with room for
    /// half again, it filled the map and ran twice).
    var room: Int {
        largestGrowth.withLock { 2 * ($0 ?? 0) }
    }

    /// Whether a transaction of the run has committed, so that ``room`` foretells from what it grew.
    var hasSeenATransaction: Bool {
        largestGrowth.withLock { $0 != nil }
    }

    /// Notes that a transaction grew the used part of the map from `before` to `after` bytes.
    func record(from before: Int, to after: Int) {
        largestGrowth.withLock { $0 = max($0 ?? 0, after - before) }
    }
}

import ChronicleLog
import Foundation

/// A large backlog (a log copied in, a big import, a device's first pull) caught up the way a
/// rebuild builds, so that the first read after it waits no longer than a rebuild would take:
/// transactions of several chunks, each folded into the live models as ``LogReadAhead``
/// decodes the next ones on the other core, each transaction as large as a rebuild's
/// (``TransactionBound``). Applying it batch by batch decoded each batch whole before folding
/// it and committed a third as many events per transaction (every commit rewrites the pages it
/// touched), and ran 1.5× as long as a rebuild of the same log.
extension ProjectionWorker {
    /// How many events per chunk a backlog is read and folded in.
    var backlogChunkSize: Int { min(batchSize, Rebuild.chunkSize) }

    /// Whether `from → head` is a backlog for ``catchUpBacklog(after:through:)`` (two batches or more).
    func isBacklog(from: UInt64, head: UInt64) -> Bool {
        head - from >= 2 * UInt64(batchSize)
    }

    /// Folds the events after `from`, up to `head` at least, into every live model.
    func catchUpBacklog(after from: UInt64, through head: UInt64) async throws {
        let source = LogReadAhead(log: log, chunkSize: backlogChunkSize, after: from)
        defer { source.stop() }
        let forecast = MapGrowthForecast()
        var position = from
        while position < head {
            let start = position
            guard let last = try await queue.perform({ [self] in try foldChunks(after: start, from: source, forecast: forecast) }) else {
                return
            }
            position = last
        }
    }

    /// Folds the events after `position` into the live models in one write transaction of
    /// ``largeTransactions`` (whole chunks), after making the room `forecast` foresees; returns
    /// the last position read (nil at the log's head).
    private func foldChunks(after position: UInt64, from source: LogReadAhead, forecast: MapGrowthForecast) throws -> UInt64? {
        try foldIntoLiveModels(bound: largeTransactions, expectedEntities: largeTransactions.entitiesToReserve(chunkSize: source.chunkSize),
                               forecast: forecast, restart: { source.restart(after: position) }, next: source.next)
    }
}

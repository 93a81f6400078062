import EventLog
import Foundation

/// A large backlog (a log copied in, a big import, a device's first pull) caught up the way a
/// rebuild builds, so that the first read after it waits no longer than a rebuild would take:
/// transactions of several chunks, each folded into the live models as ``LogReadAhead``
/// decodes the next ones on the other core. Applying it batch by batch decoded each batch
/// whole before folding it and committed a third as many events per transaction (every commit
/// rewrites the pages it touched), and ran 1.5× as long as a rebuild of the same log.
extension ProjectionWorker {
    /// How many events per chunk a backlog is read and folded in.
    var backlogChunkSize: Int { min(batchSize, Rebuild.chunkSize) }
    /// How many events a backlog's transaction folds: four batches, like a rebuild's.
    var backlogTransactionSize: Int { 4 * batchSize }

    /// Whether `from → head` is a backlog for ``catchUpBacklog(after:through:)`` (two batches or more).
    func isBacklog(from: UInt64, head: UInt64) -> Bool {
        head - from >= 2 * UInt64(batchSize)
    }

    /// Folds the events after `from`, up to `head` at least, into every live model.
    func catchUpBacklog(after from: UInt64, through head: UInt64) async throws {
        let source = LogReadAhead(log: log, chunkSize: backlogChunkSize, after: from)
        defer { source.stop() }
        var position = from
        while position < head {
            let start = position
            let limit = backlogTransactionSize
            guard let last = try await queue.perform({ [self] in try foldChunks(after: start, from: source, limit: limit) }) else {
                return
            }
            position = last
        }
    }

    /// Folds `limit` events after `position` (rounded up to whole chunks) into every current
    /// projection's live model in one write transaction, with their checkpoints, as
    /// ``apply(_:)`` does for one batch; returns the last position read (nil at the log's head).
    private func foldChunks(after position: UInt64, from source: LogReadAhead, limit: Int) throws -> UInt64? {
        let describe = observers.isActive
        let before = seen.withLock { $0 }
        var attempts = 0
        let (last, changes, after) = try models.write { txn -> (UInt64?, [ReadModelChange], [ProjectionName: Seen]) in
            // The environment runs this again after growing the map; the chunks are read again too.
            if attempts > 0 { source.restart(after: position) }
            attempts += 1
            var changes: [ReadModelChange]? = describe ? [] : nil
            var after = before
            var live: [(name: ProjectionName, state: ProjectionState, batch: any Projection)] = []
            for name in ProjectionName.allCases {
                let state = try models.databases.state(name, txn)
                // A model built by an older version waits for its rebuild; a newer one is not ours to touch.
                guard models.isCurrent(name, state) else { continue }
                if let known = before[name], known.generation != state.generation || known.checkpoint < state.checkpoint {
                    changes?.append(.invalidated(name, position: state.checkpoint))
                }
                live.append((name, state, name.projection.init(txn: txn, databases: models.databases.databases(name, state.slot),
                                                              ranks: source.ranks)))
            }
            var events = 0
            var last: UInt64?
            while events < limit, let chunk = try source.next() {
                // Each checkpoint was read inside this transaction: only later events are folded,
                // so an event applies exactly once even when several processes apply at once.
                for index in live.indices {
                    let checkpoint = live[index].state.checkpoint
                    live[index].state.skipped += try live[index].batch.fold(chunk.events, after: checkpoint)
                    live[index].state.checkpoint = max(checkpoint, chunk.last)
                }
                last = chunk.last
                events += chunk.count
            }
            guard last != nil else { return (nil, [], before) }
            for var projection in live {
                try projection.batch.finish(changes: &changes)
                try models.databases.putState(projection.state, of: projection.name, txn)
                after[projection.name] = Seen(generation: projection.state.generation, checkpoint: projection.state.checkpoint)
            }
            return (last, changes ?? [], after)
        }
        guard last != nil else { return nil }
        seen.withLock { $0 = after }
        observers.yield(changes)
        return last
    }
}

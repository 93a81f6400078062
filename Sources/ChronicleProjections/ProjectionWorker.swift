import Dispatch
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleLMDB
import Synchronization

/// What a ``ProjectionRunner`` does, held by its background task (so dropping the runner ends the task).
///
/// Every LMDB write of this process's projections runs on one serial queue, off Swift's
/// cooperative threads; that also orders the changes delivered to observers.
final class ProjectionWorker: Sendable {
    let log: EventLog
    let models: ReadModels
    let batchSize: Int
    /// When a transaction of a backlog or of a version upgrade's rebuild ends.
    let largeTransactions: TransactionBound
    let observers = ChangeObservers()
    let queue = DispatchQueue(label: "chronicle.projections")
    /// The generation and checkpoint of each projection after this worker last applied to it.
    let seen: Mutex<[ProjectionName: Seen]>
    /// The version upgrade rebuild in progress in this process, shared by every caller.
    private let upgrade = Mutex<(id: Int, task: Task<Void, any Error>)?>(nil)
    private let upgradeCount = Mutex(0)
    /// The last error of the background task, if it is retrying.
    let lastError = Mutex<String?>(nil)
    /// Told how far a version upgrade rebuild is.
    let upgradeProgress: @Sendable (RebuildProgress) -> Void

    struct Seen: Sendable, Equatable {
        var generation: UInt64
        var checkpoint: UInt64
    }

    init(log: EventLog, models: ReadModels, batchSize: Int, largeTransactions: TransactionBound,
         upgradeProgress: @escaping @Sendable (RebuildProgress) -> Void) {
        self.upgradeProgress = upgradeProgress
        self.log = log
        self.models = models
        self.batchSize = batchSize
        self.largeTransactions = largeTransactions
        let initial = (try? models.read { txn in
            try ProjectionName.builders.map { name -> (ProjectionName, Seen) in
                let state = try models.databases.state(name, txn)
                return (name, Seen(generation: state.generation, checkpoint: state.checkpoint))
            }
        }) ?? []
        seen = Mutex(Dictionary(uniqueKeysWithValues: initial))
    }

    // MARK: - Applying

    /// Applies everything in the log now, batch by batch; returns the models' checkpoint.
    func catchUp() async throws -> UInt64 {
        try await upgradeIfNeeded()
        let head = try log.head()
        let from = try pendingFrom()
        if from < head {
            try models.prepareForBatch(of: head - from)
            if isBacklog(from: from, head: head) {
                try await catchUpBacklog(after: from, through: head)
                return try models.checkpoint()
            }
            // Checkpoints only move forward, so batches read from the lowest one stay applicable.
            let reader = LogPrefetcher(log: log, batchSize: batchSize)
            var next = reader.batch(after: from, through: head)
            defer { next.cancel() }
            while let batch = try await next.value {
                next = reader.batch(after: batch.last, through: head)
                try await queue.perform { [self] in try apply(batch.events) }
            }
        }
        return try models.checkpoint()
    }

    /// The lowest checkpoint of the projections this code applies (`UInt64.max` when none).
    private func pendingFrom() throws -> UInt64 {
        try models.read { txn in
            try ProjectionName.builders.compactMap { name -> UInt64? in
                let state = try models.databases.state(name, txn)
                return models.isCurrent(name, state) ? state.checkpoint : nil
            }.min() ?? .max
        }
    }

    /// Applies `decoded` (consecutive positions) to every projection's live model in one
    /// write transaction, together with the checkpoints. Runs on `queue`.
    func apply(_ decoded: DecodedEvents) throws {
        guard let last = decoded.last else { return }
        var given = false
        _ = try foldIntoLiveModels(bound: .events(.max), expectedEntities: decoded.items.count, restart: { given = false }) {
            defer { given = true }
            // One chunk, under no bound: its bytes and the head are not looked at.
            return given ? nil : LogPrefetcher.Batch(events: decoded, last: last, count: decoded.items.count, bytes: 0, head: last)
        }
    }

    /// Folds chunks of consecutive events from `next` (until `bound` is reached, or nil) into
    /// every current projection's live model in one write transaction, together with the
    /// checkpoints; returns the last position folded (nil when `next` gave nothing). Runs on
    /// `queue`. `expectedEntities` sizes the projections' batches (about how many entities
    /// they will hold). `restart` is called when the environment runs the transaction again
    /// (after growing its map): `next` starts over then. A backlog passes its `forecast`, to
    /// make room in the map first; once an earlier transaction of the backlog has shown that room,
    /// the transaction writes its overlays and folds on up to `bound.overlays` times before it
    /// commits, as a rebuild's does.
    ///
    /// Each checkpoint is read inside the transaction and only later events are folded,
    /// so an event applies exactly once even when several processes apply at once.
    func foldIntoLiveModels(bound: TransactionBound, expectedEntities: Int, forecast: MapGrowthForecast? = nil, restart: () -> Void,
                            next: () throws -> LogPrefetcher.Batch?) throws -> UInt64? {
        let describe = observers.isActive
        let before = seen.withLock { $0 }
        let overlays = bound.overlays(foreseenBy: forecast)
        var attempts = 0
        let (last, changes, after) = try models.write(foreseeing: forecast) { txn -> (UInt64?, [ReadModelChange], [ProjectionName: Seen]) in
            if attempts > 0 { restart() }
            attempts += 1
            var changes: [ReadModelChange]? = describe ? [] : nil
            var seenSoFar = before
            var last: UInt64?
            for _ in 0..<overlays {
                let folded = try foldOverlay(bound: bound, expectedEntities: expectedEntities, txn, seen: &seenSoFar,
                                             changes: &changes, next: next)
                last = folded.last ?? last
                if folded.reachedHead { break }
            }
            return (last, changes ?? [], seenSoFar)
        }
        seen.withLock { $0 = after }
        observers.yield(changes)
        return last
    }

    /// Folds chunks into every current projection's live model until `bound` is reached and writes
    /// their overlays and checkpoints, in `txn`. `seen` holds where each model stood when last seen
    /// (a model another process moved since is announced as invalidated in `changes`) and is
    /// brought up to where this leaves them.
    private func foldOverlay(bound: TransactionBound, expectedEntities: Int, _ txn: Transaction, seen: inout [ProjectionName: Seen],
                             changes: inout [ReadModelChange]?, next: () throws -> LogPrefetcher.Batch?) throws -> FoldedChunks {
        var live: [ModelFold<ProjectionState>] = []
        for name in ProjectionName.builders {
            let state = try models.databases.state(name, txn)
            // A model built by an older version waits for its rebuild; a newer one is not ours to touch.
            guard models.isCurrent(name, state) else { continue }
            if let known = seen[name], known.generation != state.generation || known.checkpoint < state.checkpoint {
                for model in ProjectionName.built(by: name) { changes?.append(.invalidated(model, position: state.checkpoint)) }
            }
            var batch = name.projection.init(txn: txn, databases: models.databases.databases(name, state.slot),
                                             ranks: MergeRanks(log: log))
            batch.reserve(entities: expectedEntities)
            live.append(ModelFold(name: name, position: state, batch: batch))
        }
        let from = live.map(\.position.checkpoint)
        let folded = try bound.fold(&live, from: next)
        for (var projection, from) in zip(live, from) {
            if projection.position.checkpoint > from {
                try projection.batch.finish(changes: &changes)
                try models.databases.putState(projection.position, of: projection.name, txn)
            }
            seen[projection.name] = Seen(generation: projection.position.generation, checkpoint: projection.position.checkpoint)
        }
        return folded
    }

    // MARK: - Version upgrades

    /// Rebuilds (blue/green) the models built by an older version of their projection, or
    /// ahead of the log, joining a rebuild another caller or process already runs.
    func upgradeIfNeeded() async throws {
        while true {
            let stale = try models.staleProjections(logHead: log.head)
            if stale.isEmpty { return }
            let (id, task) = upgrade.withLock { running -> (Int, Task<Void, any Error>) in
                if let running { return running }
                let id = upgradeCount.withLock { count -> Int in count += 1; return count }
                let task = Task { [self] in
                    _ = try await Rebuild.run(log: log, models: models, projections: stale, bound: largeTransactions,
                                              mode: .join, progress: upgradeProgress)
                    try await queue.perform { [self] in try announceRebuilt(stale) }
                }
                running = (id, task)
                return (id, task)
            }
            defer { upgrade.withLock { running in if running?.id == id { running = nil } } }
            do {
                try await task.value
            } catch ProjectionError.superseded {
                continue   // an explicit rebuild took over; look again
            }
        }
    }

    /// Tells observers that rebuilt models replaced what they showed.
    private func announceRebuilt(_ names: [ProjectionName]) throws {
        let states = try models.read { txn in try names.map { ($0, try models.databases.state($0, txn)) } }
        seen.withLock { seen in
            for (name, state) in states { seen[name] = Seen(generation: state.generation, checkpoint: state.checkpoint) }
        }
        observers.yield(states.flatMap { name, state in
            ProjectionName.built(by: name).map { .invalidated($0, position: state.checkpoint) }
        })
    }

    // MARK: - Background

    /// Tails the log and applies each batch as it lands, until cancelled; retries after errors.
    func runInBackground() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                // A backlog goes through the faster catch-up first, then the live tail takes over.
                _ = try await catchUp()
                let from = try pendingFrom()
                for try await batch in log.subscribeBatches(after: from == .max ? try log.head() : from, batchSize: batchSize) {
                    try await queue.perform { [self] in try apply(try MergeDecoder(log: log).decode(batch)) }
                    failures = 0
                    lastError.withLock { $0 = nil }
                }
                return
            } catch {
                if Task.isCancelled { return }
                failures += 1
                lastError.withLock { $0 = String(describing: error) }
                try? await Task.sleep(for: .milliseconds(min(5_000, 50 << min(failures, 7))))
            }
        }
    }
}

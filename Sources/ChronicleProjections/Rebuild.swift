import Dispatch
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleLMDB

/// Rebuilds read models from the log, blue/green.
///
/// ```swift
/// let summary = try await Rebuild.run(log: log, models: models, projections: [.todos]) { progress in
///     print("\(progress.done)/\(progress.total) events, \(Int(progress.eventsPerSecond))/s")
/// }
/// ```
///
/// Each projection has two sets of databases (slots). The rebuild empties the slot
/// readers are not using, replays the whole log into it in large batches (one write
/// transaction each, recording how far it got; a batch ends when one model holds
/// ``heldEntitiesPerTransaction`` entities in memory, when the events' data and the entities
/// loaded reach 64 MiB, or after `batchSize` events), and
/// then, in one write transaction, brings it level with the live model, makes it the
/// active slot and empties the old one. Readers and the incremental runner keep using the
/// old model until that transaction commits, and appends never wait for any of it.
///
/// A rebuild that dies halfway (even by SIGKILL) leaves the old model active and a
/// half-filled slot behind; the next rebuild empties that slot and starts over.
/// A rebuild started while another one runs replaces it: the older one stops with
/// ``ProjectionError/superseded(_:)``.
public enum Rebuild {
    /// The most events a write transaction folds before it writes its overlay, unless a caller says
    /// otherwise. Large, because each commit rewrites every page it touched (at 20,000 a rebuild
    /// wrote about one page per event); an overlay is usually written earlier, at
    /// ``heldEntitiesPerTransaction``, and after the first transaction a transaction may write two
    /// before it commits (`TransactionBound.overlays`). The models
    /// are mapped with `MDB_WRITEMAP`, so the pages written cost page cache, not anonymous memory.
    public static let defaultBatchSize = TransactionBound.build.events
    /// The most entities one model holds in memory before the rebuild writes its overlay (and,
    /// unless the transaction may write another, commits): with the bytes they hold, what bounds
    /// the rebuild's memory (about 0.6 KiB for a todo).
    public static let heldEntitiesPerTransaction = TransactionBound.build.heldEntities
    /// Events read and decoded at a time: what a build holds in memory besides its overlay.
    static let chunkSize = 10_000

    /// Replays the log into fresh databases for `projections` and swaps them in atomically.
    ///
    /// - parameters:
    ///   - projections: which models to rebuild (all by default); they share one pass over the log.
    ///     Daily stats are rebuilt with the todos they are counted from, and the other way round.
    ///   - batchSize: the most events per write transaction; by default a transaction ends at the
    ///     entities its models hold and, after the first, may write them twice before committing
    ///     (``TransactionBound/build``).
    ///   - progress: called after every batch, for a progress bar.
    /// - returns: what was rebuilt, from how many events, how fast.
    /// - throws: ``ProjectionError``, ``EventLogError``, or `CancellationError` (the old models stay active).
    public static func run(log: EventLog, models: ReadModels, projections: [ProjectionName] = ProjectionName.allCases,
                           batchSize: Int? = nil,
                           progress: @Sendable (RebuildProgress) -> Void = { _ in }) async throws -> RebuildSummary {
        try await run(log: log, models: models, projections: projections, bound: batchSize.map(TransactionBound.events) ?? .build,
                      mode: .fresh, progress: progress)
    }

    /// How a rebuild treats a build already in progress.
    enum Mode {
        /// Start over (an operator asked for a rebuild).
        case fresh
        /// Continue a build of the current version if there is one (version upgrades; several
        /// processes opening the same store cooperate on one build), else start one;
        /// only projections built by an older version or ahead of the log.
        case join
    }

    /// `bound`: when each write transaction ends. `readAhead`: events read and decoded at a
    /// time, and `readAheadBytes` the most bytes of their data (tests make them small, to fold
    /// several chunks in a transaction).
    static func run(log: EventLog, models: ReadModels, projections: [ProjectionName], bound: TransactionBound, mode: Mode,
                    readAhead: Int = chunkSize, readAheadBytes: Int = ChunkReadAheadDefaults.chunkBytes,
                    progress: @Sendable (RebuildProgress) -> Void) async throws -> RebuildSummary {
        // A derived model is rebuilt by its builder, with the builder's other models.
        let names = ProjectionName.builders(of: projections)
        let queue = DispatchQueue(label: "chronicle.rebuild")
        let clock = ContinuousClock()
        let started = clock.now
        var plan = try await queue.perform { try begin(models, names, mode, logHead: log.head) }
        let startPosition = plan.values.map(\.checkpoint).min() ?? 0
        try models.prepareForBatch(of: try log.head() - min(startPosition, try log.head()))
        var position = startPosition
        var eventsRead: UInt64 = 0
        let source = LogReadAhead(log: log, chunkSize: min(bound.events, readAhead), chunkBytes: readAheadBytes, after: position)
        defer { source.stop() }
        let forecast = MapGrowthForecast()
        var runAgain = 0
        while !plan.isEmpty {
            try Task.checkCancellation()
            let current = plan, from = position
            let step = try await queue.perform {
                try applyBuild(models, current, after: from, source: source, bound: bound, forecast: forecast)
            }
            runAgain += step.runAgain
            for name in step.finished { plan[name] = nil }
            guard let last = step.last else { break }
            position = last
            eventsRead += UInt64(step.events)
            let elapsed = clock.now - started
            let done = position - startPosition
            progress(RebuildProgress(done: done, total: max(step.head, position) - startPosition,
                                     eventsPerSecond: rate(done, elapsed), elapsed: elapsed))
        }
        let final = plan
        let outcome = try await queue.perform { try swap(log, models, final, batchSize: bound.events) }
        let elapsed = clock.now - started
        var summary = RebuildSummary(projections: ProjectionName.allCases.filter { names.contains($0.builder) },
                                     position: max(position, outcome.position), eventsRead: eventsRead,
                                     skippedEvents: outcome.skipped, elapsed: elapsed,
                                     eventsPerSecond: rate(position - startPosition, elapsed), entries: outcome.entries)
        summary.transactionsRunAgain = runAgain
        return summary
    }

    private static func rate(_ events: UInt64, _ elapsed: Duration) -> Double {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Double(events) / seconds : 0
    }

    // MARK: - Steps (each one write transaction)

    /// Empties the inactive slots and records the builds (or adopts running ones in join mode).
    static func begin(_ models: ReadModels, _ names: [ProjectionName], _ mode: Mode,
                      logHead: () throws -> UInt64 = { 0 }) throws -> [ProjectionName: BuildState] {
        try models.write { txn in
            var plan: [ProjectionName: BuildState] = [:]
            let states = try ProjectionName.builders(of: names).map { ($0, try models.databases.state($0, txn)) }
            let head = mode == .join ? try logHead() : 0   // read after the states (see ReadModels.needsRebuild)
            for (name, state) in states {
                let version = models.codeVersion(of: name)
                if mode == .join {
                    guard models.needsRebuild(state, of: name, head: head) else { continue }
                    if let running = try models.databases.build(name, txn), running.version == version,
                       running.slot != state.slot {
                        plan[name] = running
                        continue
                    }
                }
                let slot = state.slot.other
                try models.databases.clear(name, slot, txn)
                var id: UInt64 = 0
                while id == 0 || id == state.buildID { id = UInt64.random(in: 1...UInt64.max) }
                let build = BuildState(slot: slot, version: version, id: id, checkpoint: 0, skipped: 0)
                try models.databases.putBuild(build, of: name, txn)
                plan[name] = build
            }
            return plan
        }
    }

    /// What one write transaction of a build did.
    struct Step {
        /// The projections whose build another process already finished and swapped in.
        var finished: [ProjectionName]
        /// The position of the last event read; nil when the log had none after the start.
        var last: UInt64?
        var events: Int
        /// The log's head when the last chunk was read.
        var head: UInt64
        /// How many times the transaction ran again (after growing a full map).
        var runAgain = 0
    }

    /// Folds the events after `position`, chunk by chunk as `source` decodes them, into every
    /// planned build until `bound` is reached (whole chunks), in one write transaction, after making
    /// the room in the map that `forecast` foresees. Once an earlier transaction has shown that room,
    /// the transaction writes its overlays and folds on up to `bound.overlays` times before it commits
    /// (the first one writes them once: nothing foretells how much it will grow the map).
    static func applyBuild(_ models: ReadModels, _ plan: [ProjectionName: BuildState], after position: UInt64,
                           source: LogReadAhead, bound: TransactionBound, forecast: MapGrowthForecast) throws -> Step {
        var attempts = 0
        let overlays = bound.overlays(foreseenBy: forecast)
        return try models.write(foreseeing: forecast) { txn in
            // The environment runs this again after growing the map; the chunks are read again too.
            if attempts > 0 { source.restart(after: position) }
            attempts += 1
            var step = Step(finished: [], last: nil, events: 0, head: position, runAgain: attempts - 1)
            for _ in 0..<overlays {
                guard let folded = try foldOverlay(models, plan, txn, source: source, bound: bound, into: &step),
                      !folded.reachedHead else { break }
            }
            return step
        }
    }

    /// Folds chunks into every planned build until `bound` is reached and writes their overlays, in
    /// `txn`; notes it in `step`. Nil when no build is left to fold (each finished or superseded).
    private static func foldOverlay(_ models: ReadModels, _ plan: [ProjectionName: BuildState], _ txn: Transaction,
                                    source: LogReadAhead, bound: TransactionBound, into step: inout Step) throws -> FoldedChunks? {
        var builds: [ModelFold<BuildState>] = []
        for (name, planned) in plan.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            guard let build = try models.databases.build(name, txn), build.id == planned.id else {
                if try models.databases.state(name, txn).buildID == planned.id {
                    if !step.finished.contains(name) { step.finished.append(name) }
                    continue
                }
                throw ProjectionError.superseded(name)
            }
            let databases = models.databases.databases(name, build.slot)
            var batch = name.projection.init(txn: txn, databases: databases, ranks: source.ranks)
            batch.reserve(entities: bound.entitiesToReserve(chunkSize: source.chunkSize))
            builds.append(ModelFold(name: name, position: build, batch: batch))
        }
        guard !builds.isEmpty else { return nil }
        let folded = try bound.fold(&builds, from: source.next)
        step.last = folded.last ?? step.last
        step.events += folded.events
        step.head = folded.head ?? step.head
        for var build in builds {
            var none: [ReadModelChange]? = nil
            try build.batch.finish(changes: &none)
            try models.databases.putBuild(build.position, of: build.name, txn)
        }
        return folded
    }

    /// Brings each build level with its live model, swaps it in and empties the old slot.
    static func swap(_ log: EventLog, _ models: ReadModels, _ plan: [ProjectionName: BuildState],
                             batchSize: Int) throws -> (position: UInt64, skipped: UInt64, entries: [ProjectionName: Int]) {
        try models.write { txn in
            var position: UInt64 = 0, skipped: UInt64 = 0
            var entries: [ProjectionName: Int] = [:]
            for name in ProjectionName.builders {
                var state = try models.databases.state(name, txn)
                if let planned = plan[name] {
                    if var build = try models.databases.build(name, txn), build.id == planned.id {
                        // The live model may have applied events appended since the build's last batch;
                        // never past the log's head (read after the state): a live model ahead of the
                        // log is the very reason for some rebuilds.
                        let target = min(state.checkpoint, try log.head())
                        while build.checkpoint < target {
                            let limit = Int(min(UInt64(min(batchSize, chunkSize)), target - build.checkpoint))
                            guard let chunk = try LogPrefetcher.read(log, after: build.checkpoint, limit: limit,
                                                                     maxBytes: ChunkReadAheadDefaults.chunkBytes) else {
                                throw ProjectionError.beyondHead(position: target, head: build.checkpoint)
                            }
                            var none: [ReadModelChange]? = nil
                            build.skipped += try name.projection.apply(
                                chunk.events, after: build.checkpoint, txn: txn,
                                databases: models.databases.databases(name, build.slot), ranks: MergeRanks(log: log),
                                changes: &none)
                            build.checkpoint = chunk.last
                        }
                        let old = state.slot
                        state = ProjectionState(slot: build.slot, version: build.version, generation: state.generation + 1,
                                                checkpoint: build.checkpoint, skipped: build.skipped, buildID: build.id)
                        try models.databases.putState(state, of: name, txn)
                        try models.databases.deleteBuild(of: name, txn)
                        try models.databases.clear(name, old, txn)
                    } else if state.buildID != planned.id {
                        throw ProjectionError.superseded(name)
                    }
                    skipped = max(skipped, state.skipped)
                }
                position = max(position, state.checkpoint)
                if plan[name] != nil {
                    for model in ProjectionName.built(by: name) {
                        entries[model] = try txn.count(models.databases.databases(model, state.slot)[0])
                    }
                }
            }
            return (position, skipped, entries)
        }
    }
}

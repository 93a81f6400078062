import ChronicleSchema
import ChronicleLog
import Dispatch
import Foundation
import ChronicleLMDB
import Synchronization

extension ModelStates {
    /// A rebuild's fold from far behind, on two threads: while a second thread encodes, writes
    /// and commits one batch's entities, this one folds the next. The next batch reads the
    /// stored entities in a read transaction that sees every batch but the one being written,
    /// and takes the entities that one touched from its fold (``ModelStatesBatch/Handover``).
    /// The batches write the entities' states alone; the indexes, rows and hidden flags are
    /// derived from them at the end, as `derivation` says (``StatesDerivation``). Each batch
    /// folds `eventsPerTransaction` events at most (and ``EventLog/defaultBatchBytes`` of
    /// their data). Returns the position reached.
    ///
    /// Only a rebuild's slot folds this way: no other process writes it (another rebuild takes
    /// it over, and this one then throws ``ProjectionError/supersededEntities``).
    func pipelinedCatchUp(from start: UInt64, to head: UInt64, into target: FoldTarget, eventsPerTransaction: Int = largeBatchSize,
                          derivation: (parts: Int, entitiesPerRound: Int)) throws -> UInt64 {
        let (reader, deviceID) = (ChronicleModel.EventReader(model), log.deviceID)
        let source = ChunkReadAhead(log: log, chunkSize: min(Self.readAheadChunk, eventsPerTransaction), after: start) { stored in
            try ModelChunk(stored, reader: reader, deviceID: deviceID)
        }
        defer { source.stop() }
        let writer = PipelinedBatchWriter(states: self, target: target)
        // Whatever ends the fold, the write running ends before it returns.
        defer { writer.drain() }
        var previous: ModelStatesBatch.Handover?
        var reached = start
        while reached < head {
            let folded = try ProjectionError.mappingStorage {
                try environment.read { txn -> (batch: ModelStatesBatch, last: UInt64)? in
                    var batch = ModelStatesBatch(rebuildingAfter: previous, states: self, txn: txn, tables: try target.tables(of: self, txn))
                    var (events, bytes, last) = (0, 0, reached)
                    while events < eventsPerTransaction && bytes < EventLog.defaultBatchBytes, let chunk = try source.next() {
                        try batch.fold(chunk)
                        events += chunk.entries.count
                        bytes += chunk.bytes
                        last = chunk.last
                    }
                    return last > reached ? (batch, last) : nil
                }
            }
            guard let folded else { break }
            var batch = folded.batch
            let last = folded.last
            batch.releasePrevious()
            // The batch before has committed once the writer is free: the next fold sees it stored.
            try writer.waitUntilFree()
            previous = batch.handover
            writer.write(batch, from: reached, to: last)
            reached = last
        }
        try writer.waitUntilFree()
        // The batches wrote the states alone: the indexes, rows and hidden flags follow from them.
        try StatesDerivation.derive(self, into: target, parts: derivation.parts, entitiesPerRound: derivation.entitiesPerRound)
        return reached
    }
}

/// The second thread of `ModelStates.pipelinedCatchUp`: writes one batch at a
/// time, each in a write transaction of its own, in the order given.
///
/// Thread rules: ``write(_:from:to:)`` and ``waitUntilFree()`` are called by one thread, the
/// folding one, a write only when free. A batch handed over is the writer's alone: the folding
/// thread keeps no reference to its transaction, only a copy of its fold (values).
private final class PipelinedBatchWriter: @unchecked Sendable {
    private let states: ModelStates
    private let target: ModelStates.FoldTarget
    private let queue = DispatchQueue(label: "chronicle.rebuild.write")
    /// 1 while no write is running.
    private let free = DispatchSemaphore(value: 1)
    /// The first write's error: the writes after it are not made.
    private let failure = Mutex<(any Error)?>(nil)
    /// How much each transaction grows the map, so that the next seldom runs twice.
    private let forecast = MapGrowthForecast()

    init(states: ModelStates, target: ModelStates.FoldTarget) {
        self.states = states
        self.target = target
    }

    /// Waits for the write running (if any) to commit; throws the error of one that failed.
    func waitUntilFree() throws {
        drain()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// Waits for the write running (if any) to end, whatever its outcome.
    func drain() {
        free.wait()
        free.signal()
    }

    /// Writes `batch`, which folded the events after `checkpoint` up to `last`, on the
    /// writer's thread.
    func write(_ batch: ModelStatesBatch, from checkpoint: UInt64, to last: UInt64) {
        free.wait()
        let handed = HandedBatch(batch: batch)
        queue.async { [self] in
            defer { free.signal() }
            guard failure.withLock({ $0 == nil }) else { return }
            do {
                try commit(handed.batch, from: checkpoint, to: last)
            } catch {
                failure.withLock { $0 = error }
            }
        }
    }

    private func commit(_ folded: ModelStatesBatch, from checkpoint: UInt64, to last: UInt64) throws {
        var batch = folded
        try states.write(foreseeing: forecast) { txn in
            let tables = try target.tables(of: states, txn)
            // Only this rebuild writes its slot: a checkpoint elsewhere means another took it over.
            guard try ModelStates.checkpoint(txn, tables.meta) == checkpoint else { throw ProjectionError.supersededEntities }
            batch.move(to: txn, tables)
            _ = try batch.finish()
            try ModelStates.record(batch, reaching: last, txn, tables.meta)
        }
        if case .rebuilding(_, _, let progress) = target { progress(last) }
    }
}

/// A folded batch on its way to the writer's thread (``PipelinedBatchWriter``'s thread rules).
private struct HandedBatch: @unchecked Sendable {
    let batch: ModelStatesBatch
}

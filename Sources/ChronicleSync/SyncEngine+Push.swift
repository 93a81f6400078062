import ChronicleLog
import Foundation
import Logging

/// The pusher: sends this store's events after the acknowledged position, batch by batch.
extension SyncEngine {
    /// Pushes every unacknowledged event, batch after batch, until all are acknowledged,
    /// a permanent error stops it, or `configuration.retry.maxAttempts` consecutive tries failed.
    ///
    /// A retried batch carries the same events (ids) again. Sync failures are reported in the
    /// summary, not thrown: the events stay pending.
    ///
    /// - throws: ``SyncError/storage(_:)`` when the log or the sync state cannot be read or
    ///   written; `CancellationError` when the task is cancelled.
    public func push() async throws -> PushSummary {
        await acquire()
        defer { release() }
        var summary = PushSummary(outcome: .complete)
        var failures = 0
        attemptsThisRun = 0
        defer {
            phase = SyncStatus.restingPhase(state)
            publish()
        }
        while true {
            try Task.checkCancellation()
            switch try await pushNextBatch() {
            case .upToDate:
                return finish(summary)
            case let .acknowledged(ack, count):
                failures = 0
                summary.batches += 1
                summary.requests += 1
                summary.eventsAcknowledged += count
                summary.accepted += ack.accepted
                summary.duplicates += ack.duplicates
            case .resized:
                summary.requests += 1
            case .skipped:
                continue
            case let .failed(error, retryAfter):
                summary.requests += 1
                summary.failures.append(error)
                failures += 1
                if let end = try await backOff(after: error, retryAfter: retryAfter, failures: failures, waits: &summary.waits) {
                    summary.outcome = end
                    return finish(summary)
                }
            }
        }
    }

    private func finish(_ summary: PushSummary) -> PushSummary {
        var summary = summary
        let status = currentStatus()
        summary.lastAckedPosition = status.lastAckedPosition
        summary.pending = status.pending
        return summary
    }

    enum DrainOutcome {
        case upToDate
        case failed(SyncError, retryAfter: Duration?)
    }

    /// Pushes batches until the log is acknowledged or one try fails.
    func drain() async throws -> DrainOutcome {
        await acquire()
        defer { release() }
        while true {
            try Task.checkCancellation()
            switch try await pushNextBatch() {
            case .upToDate: return .upToDate
            case .acknowledged, .resized, .skipped: continue
            case let .failed(error, retryAfter): return .failed(error, retryAfter: retryAfter)
            }
        }
    }


    // MARK: - One batch

    enum Step {
        case upToDate
        case acknowledged(SyncClient.Acknowledgement, count: Int)
        /// The batch held only pulled events: the acknowledged position moved past them unsent.
        case skipped
        /// The server found the batch too large (413): the next one is smaller.
        case resized
        case failed(SyncError, retryAfter: Duration?)
    }

    /// Sends the events after the acknowledged position (one batch) and records the answer.
    ///
    /// Pipelined: while the request is on the wire the next batch is read and encoded, and the
    /// acknowledgement of the previous batch is written; the acknowledged position recorded
    /// on disk may lag the one in memory by one batch until ``settle()``, which is harmless
    /// (the server deduplicates a re-pushed batch).
    func pushNextBatch() async throws -> Step {
        if recording == nil {
            state = try store.load()   // another process may have pushed meanwhile
        }
        let batch: PreparedBatch
        if let ready = prepared, ready.after == state.ackedPosition, ready.events.count <= batchLimit {
            batch = ready
        } else {
            batch = try PreparedBatch.read(from: log, after: state.ackedPosition, limit: batchLimit,
                                           maxBytes: configuration.maxBatchBytes)
        }
        prepared = nil
        let events = batch.events
        guard batch.through > batch.after else {
            try await settle()
            return .upToDate
        }
        guard !events.isEmpty else {
            try await settle()
            let through = batch.through
            state = try store.update { $0.ackedPosition = max($0.ackedPosition, through) }
            return .skipped
        }
        phase = .pushing
        publish()
        let (log, limit, maxBytes) = (log, batchLimit, configuration.maxBatchBytes)
        async let upcoming = try? PreparedBatch.read(from: log, after: batch.through, limit: limit, maxBytes: maxBytes)
        let outcome = await client.push(batch.body, count: events.count)
        let next = await upcoming
        try Task.checkCancellation()   // a cancelled request proves nothing about the server
        switch outcome {
        case .answered(let ack):
            prepared = next
            let now = Self.nowMilliseconds()
            let remote = configuration.remote.absoluteString
            let ackedTo = batch.through
            let acknowledged = UInt64(ack.accepted + ack.duplicates)
            let record: @Sendable (inout SyncState) -> Void = { state in
                state.ackedPosition = max(state.ackedPosition, ackedTo)
                state.counters.pushed += acknowledged
                state.attempts = 0
                state.lastError = nil
                state.lastErrorIsPermanent = false
                state.deviceRevoked = false
            state.deviceRevoked = false
                state.nextTryAt = nil
                state.lastSuccessAt = now
                state.remote = remote
            }
            record(&state)
            attemptsThisRun = 0
            let (store, previous) = (store, recording)
            recording = Task {
                _ = try await previous?.value
                return try store.update(record)
            }
            logger.debug("batch acknowledged", metadata: [
                "events": "\(events.count)", "accepted": "\(ack.accepted)", "duplicates": "\(ack.duplicates)",
                "ackedPosition": "\(state.ackedPosition)",
            ])
            publish()
            return .acknowledged(ack, count: events.count)
        case let .failed(error, retryAfter):
            try await settle()
            if error.status == 413, events.count > 1 {
                batchLimit = max(1, events.count / 2)
                logger.notice("the server refused a batch as too large; sending smaller batches",
                              metadata: ["events": "\(events.count)", "next": "\(batchLimit)"])
                return .resized
            }
            state = try store.update { state in
                state.attempts += 1
                state.counters.failures += 1
                state.lastError = error.description
                state.lastErrorIsPermanent = !error.isRetryable
                state.deviceRevoked = error.isDeviceRevoked
                state.nextTryAt = nil
                state.remote = configuration.remote.absoluteString
            }
            attemptsThisRun += 1
            logger.warning("push failed", metadata: [
                "error": "\(error)", "attempt": "\(attemptsThisRun)", "retryable": "\(error.isRetryable)",
            ])
            if !error.isRetryable { phase = .stopped }
            publish()
            return .failed(error, retryAfter: retryAfter)
        }
    }

    /// Waits for the acknowledgement being written, so the state on disk is the one in memory.
    func settle() async throws(SyncError) {
        guard let pending = recording else { return }
        recording = nil
        do {
            state = try await pending.value
        } catch let error as SyncError {
            throw error
        } catch {
            throw .storage("cannot write: \(error)")
        }
    }
}

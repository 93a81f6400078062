import ChronicleWire
import ChronicleLog
import Foundation

extension SyncEngine {
    /// Fetches every server event after the store's pull cursor, page by page, and stores
    /// each one once (by id: this store's own events coming back are already there), until
    /// a page comes back short. Retries like ``push()``.
    ///
    /// Each page is stored before the cursor moves past it, so a pull cut off anywhere
    /// resumes without a gap, and a page stored twice stores nothing new. A page that breaks
    /// the protocol (positions not after the cursor, not increasing, more than asked) stops
    /// the pull with ``SyncError/invalidResponse(_:)`` and stores nothing of it.
    ///
    /// ```swift
    /// let summary = try await engine.pull()
    /// print("\(summary.stored) new events, up to server position \(summary.pulledPosition)")
    /// ```
    /// - throws: ``SyncError/storage(_:)`` when the log or the sync state cannot be written;
    ///   `CancellationError`. Sync failures are in the summary.
    public func pull() async throws -> PullSummary {
        await acquire()
        defer { release() }
        try await settle()
        var summary = PullSummary(outcome: .complete)
        var failures = 0
        var prefetched: PrefetchedPage?
        attemptsThisRun = 0
        defer {
            prefetched?.task.cancel()
            phase = SyncStatus.restingPhase(state)
            publish()
        }
        while true {
            switch try await pullPage(&summary, prefetched: &prefetched) {
            case .more:
                failures = 0
            case .caughtUp:
                return summary
            case let .failed(error, retryAfter):
                summary.failures.append(error)
                failures += 1
                if let end = try await backOff(after: error, retryAfter: retryAfter, failures: failures, waits: &summary.waits) {
                    summary.outcome = end
                    return summary
                }
            }
        }
    }

    /// Pulls pages until caught up or one request fails (for ``run(stopOnPermanentError:)``,
    /// which backs off by the stored attempt count).
    func drainPulls() async throws -> DrainOutcome {
        await acquire()
        defer { release() }
        try await settle()
        var summary = PullSummary(outcome: .complete)
        var prefetched: PrefetchedPage?
        defer { prefetched?.task.cancel() }
        while true {
            switch try await pullPage(&summary, prefetched: &prefetched) {
            case .more: continue
            case .caughtUp: return .upToDate
            case let .failed(error, retryAfter): return .failed(error, retryAfter: retryAfter)
            }
        }
    }

    enum PullStep {
        /// A page that may not be the last was stored (full, or cut at its bytes of data).
        case more
        case caughtUp
        case failed(SyncError, retryAfter: Duration?)
    }

    /// The request for the page after `after`, sent while the page before it is stored.
    struct PrefetchedPage {
        let after: UInt64
        let task: Task<SyncClient.Outcome<WirePage>, Never>
    }

    /// One request: a page stored (and the cursor moved), or a failure recorded in the state.
    ///
    /// A page that may not be the last (`WirePage.mayContinue(limit:)`) is followed at once by
    /// the request for the next one (`prefetched`), which travels and is parsed while this page
    /// is stored; it is used if the cursor then stands where it asked from (another process may
    /// have pulled meanwhile), else sent again.
    private func pullPage(_ summary: inout PullSummary, prefetched: inout PrefetchedPage?) async throws -> PullStep {
        try Task.checkCancellation()
        state = try store.load()   // another process may have pulled meanwhile
        summary.pulledPosition = state.pulledPosition
        phase = .pulling
        publish()
        let limit = configuration.pullLimit
        let outcome: SyncClient.Outcome<WirePage>
        if let next = prefetched, next.after == state.pulledPosition {
            outcome = await next.task.value
        } else {
            prefetched?.task.cancel()
            outcome = await client.pull(after: state.pulledPosition, limit: limit)
        }
        prefetched = nil
        try Task.checkCancellation()
        summary.requests += 1
        switch outcome {
        case .answered(let page):
            let more = page.mayContinue(limit: limit)
            if more, let last = page.events.last?.position {
                let client = self.client
                prefetched = PrefetchedPage(after: last, task: Task { await client.pull(after: last, limit: limit) })
            }
            summary.pages += 1
            summary.received += page.events.count
            summary.stored += try await storePage(page)
            summary.pulledPosition = state.pulledPosition
            return more ? .more : .caughtUp
        case let .failed(error, retryAfter):
            state = try store.update { state in
                state.attempts += 1
                state.counters.failures += 1
                state.lastError = error.description
                state.lastErrorIsPermanent = !error.isRetryable
                state.deviceRevoked = error.isDeviceRevoked
                state.nextTryAt = nil
            }
            attemptsThisRun += 1
            logger.warning("pull failed", metadata: [
                "error": "\(error)", "attempt": "\(attemptsThisRun)", "retryable": "\(error.isRetryable)",
            ])
            if !error.isRetryable { phase = .stopped }
            publish()
            return .failed(error, retryAfter: retryAfter)
        }
    }

    /// Stores a page's events (those not stored yet), then moves the cursor past them;
    /// returns how many were new.
    private func storePage(_ page: WirePage) async throws -> Int {
        var stored = 0
        // Pulled events are never pushed: when nothing of this store's waited to be pushed and
        // the pulled events landed right after the head, the acknowledged position moves past them.
        var skippable: (from: UInt64, to: UInt64)?
        if !page.events.isEmpty {
            let foreign = page.events.map { $0.foreign(upstreamPosition: $0.position) }
            let keys: [AppendKey]
            do {
                keys = try pulledKeys?(page.events) ?? []
            } catch {
                throw SyncError.storage("cannot read the log to store pulled events: \(error)")
            }
            do {
                let before = try log.head()
                let result = try await log.ingest(foreign, keys: keys)
                stored = result.accepted
                if result.head - before == UInt64(result.accepted) { skippable = (before, result.head) }
            } catch let error as EventLogError {
                throw SyncError.storage("cannot store pulled events: \(error)")
            }
        }
        let through = page.events.last?.position ?? state.pulledPosition
        let remote = configuration.remote.absoluteString
        let storedCount = UInt64(stored)
        state = try store.update { state in
            if let skippable, state.ackedPosition == skippable.from { state.ackedPosition = skippable.to }
            state.pulledPosition = max(state.pulledPosition, through)
            state.counters.pulled += storedCount
            state.attempts = 0
            state.lastError = nil
            state.lastErrorIsPermanent = false
            state.deviceRevoked = false
            state.nextTryAt = nil
            state.remote = remote
        }
        attemptsThisRun = 0
        logger.debug("page pulled", metadata: [
            "events": "\(page.events.count)", "stored": "\(stored)", "pulledPosition": "\(state.pulledPosition)",
        ])
        return stored
    }
}

import ChronicleLog
import Foundation
import Logging

/// The scheduler: when to push and pull, and how long to wait after a failure.
extension SyncEngine {
    /// Pushes as events arrive until the task is cancelled: after appends (debounced by
    /// `configuration.debounce`), every `configuration.pollInterval`, on ``syncNow()`` and
    /// on ``networkIsBack()``. With a `configuration.pullInterval`, it also pulls: with a
    /// `configuration.pullWait` (25 s by default), as soon as a request waiting on the server
    /// (``watchServer()``, beside the pushes) sees events past the cursor, and at every poll;
    /// without one, or from a server that does not take `wait`, after each push that brought
    /// the remote up to date, at least every pull interval. Retryable failures back off per the policy, without an
    /// attempt limit; the backoff survives a restart (the next try time is stored).
    ///
    /// After a permanent failure (a 4xx such as 400 or 401) nothing is retried until
    /// ``syncNow()``; with `stopOnPermanentError` the error is thrown instead.
    ///
    /// - throws: ``SyncError/alreadyRunning`` when called twice; ``SyncError/storage(_:)``.
    ///   Cancellation ends it normally.
    public func run(stopOnPermanentError: Bool = false) async throws {
        guard !running else { throw SyncError.alreadyRunning }
        running = true
        attemptsThisRun = 0
        defer {
            running = false
            phase = SyncStatus.restingPhase(state)
            publish()
        }
        // Read before the watcher starts: an append between its start and its first read of
        // the head would otherwise wake no one, and wait for the next poll to be pushed.
        let headAtStart = (try? log.head()) ?? 0
        let watcher = Task { [log, waker, weak self] in
            var seen = headAtStart
            while !Task.isCancelled {
                guard let head = try? await log.waitForHead(beyond: seen, timeout: .seconds(10)) else { return }
                if head > seen {
                    seen = head
                    waker.wake(.append)
                    await self?.publish()
                }
            }
        }
        defer { watcher.cancel() }

        state = try store.load()
        serverWaits = configuration.pullInterval != nil && configuration.pullWait > .zero
        let listener = serverWaits ? Task { [weak self] in await self?.watchServer() } : nil
        defer { listener?.cancel() }
        var pulledAt: ContinuousClock.Instant?
        /// With `serverWaits`: the server has (or may have) events past the cursor.
        var pullDue = true
        // A backoff a previous process started still holds.
        if !state.lastErrorIsPermanent, let next = state.nextTryAt {
            let wait = Duration.milliseconds(next - Self.nowMilliseconds())
            if wait > .zero {
                phase = .backingOff(until: Date(timeIntervalSince1970: Double(next) / 1000))
                publish()
                _ = await waker.wait(accepting: [.manual, .network], timeout: wait, sleep: sleep)
            }
        }
        while !Task.isCancelled {
            waker.clear([.append])
            var outcome: DrainOutcome
            do {
                outcome = try await drain()
                if case .upToDate = outcome, let interval = configuration.pullInterval,
                   serverWaits ? pullDue : pulledAt.map({ ContinuousClock.now - $0 >= interval }) ?? true {
                    outcome = try await drainPulls()
                    pulledAt = ContinuousClock.now
                    if case .upToDate = outcome { pullDue = false }
                }
            } catch is CancellationError {
                return
            }
            switch outcome {
            case .upToDate:
                phase = .idle
                publish()
                let wait = serverWaits ? configuration.pollInterval
                    : configuration.pullInterval.map { min($0, configuration.pollInterval) } ?? configuration.pollInterval
                let reason = await waker.wait(accepting: [.append, .manual, .network, .remote], timeout: wait, sleep: sleep)
                if reason == .manual || reason == .network || reason == .remote { pulledAt = nil }
                if reason != .append { pullDue = true }
                if reason == .append, configuration.debounce > .zero {
                    try? await sleep(configuration.debounce)
                }
            case let .failed(error, retryAfter) where error.isRetryable:
                let delay = configuration.retry.delay(forAttempt: max(1, state.attempts), retryAfter: retryAfter)
                try scheduleRetry(after: delay, because: error)
                _ = await waker.wait(accepting: [.manual, .network], timeout: delay, sleep: sleep)
            case let .failed(error, _):
                phase = .stopped
                publish()
                logger.error("sync stopped", metadata: ["error": "\(error)"])
                if stopOnPermanentError { throw error }
                _ = await waker.wait(accepting: [.manual], timeout: nil, sleep: sleep)
            }
        }
    }

    /// After the `failures`-th failure in a row of one push or pull: the outcome that ends it
    /// (a permanent error, or the attempt limit), or `nil` once the backoff wait, recorded in
    /// `waits` and in the stored state, is over.
    func backOff(after error: SyncError, retryAfter: Duration?, failures: Int,
                 waits: inout [Duration]) async throws -> PushSummary.Outcome? {
        guard error.isRetryable else { return .stopped(error) }
        if let limit = configuration.retry.maxAttempts, failures >= limit { return .gaveUp(error, attempts: failures) }
        let delay = configuration.retry.delay(forAttempt: failures, retryAfter: retryAfter)
        waits.append(delay)
        try scheduleRetry(after: delay, because: error)
        try await sleep(delay)
        return nil
    }

    func scheduleRetry(after delay: Duration, because error: SyncError) throws(SyncError) {
        let next = Self.nowMilliseconds() + Int64(delay.seconds * 1000)
        state = try store.update { $0.nextTryAt = next }
        phase = .backingOff(until: Date(timeIntervalSince1970: Double(next) / 1000))
        logger.info("retrying later", metadata: ["in": "\(delay.formatted)", "error": "\(error)"])
        publish()
    }
}

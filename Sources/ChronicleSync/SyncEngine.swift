import EventLog
import Foundation
import Logging

/// Pushes a store's events to its one remote, in order, in batches, and pulls everyone's
/// events from it, retrying by the protocol's rules (docs/PROTOCOL.md).
///
/// One actor owns the sync state; the state itself lives in the log's LMDB environment
/// (named database `sync`), so a restarted process resumes where the last one stopped.
/// The engine only reads the log: it never blocks an append.
///
/// A command-line push, until everything is acknowledged or it gives up:
/// ```swift
/// let engine = try SyncEngine(log: log, configuration: SyncConfiguration(remote: url, token: token))
/// let summary = try await engine.push()
/// if let failure = summary.failure { print("gave up: \(failure); \(summary.pending) pending") }
/// ```
///
/// An app, pushing as events are appended, with its UI following along:
/// ```swift
/// let task = Task { try await engine.run() }
/// for await status in await engine.statusUpdates() { render(status) }
/// engine.networkIsBack()   // from the app's reachability callback
/// task.cancel()            // stops it
/// ```
public actor SyncEngine {
    /// Waits for a duration. Tests pass one that records the waits instead of sleeping.
    public typealias Sleep = @Sendable (Duration) async throws -> Void
    /// The effects of a page of pulled events on the log's keys (see ``EventLog/ingest(_:keys:)``):
    /// what the store's own commands would have claimed, released or touched for them, so that
    /// local decisions see what was pulled. Called before the page is stored, in server order.
    public typealias PulledKeys = @Sendable ([RecordedEvent]) throws -> [AppendKey]

    /// The log this engine pushes.
    public nonisolated let log: EventLog
    public nonisolated let configuration: SyncConfiguration

    let client: SyncClient
    let store: SyncStateStore
    let sleep: Sleep
    let pulledKeys: PulledKeys?
    let logger: Logger
    private nonisolated let waker = SyncWaker()

    var state: SyncState
    var phase: SyncStatus.Phase = .idle
    /// Failed tries in a row since this engine's current push, pull or run began (the stored
    /// count goes on across processes, for the backoff; people count from 1 in each run).
    var attemptsThisRun = 0
    private var batchLimit: Int
    private var running = false
    private var busy = false
    private var queue: [CheckedContinuation<Void, Never>] = []
    private var observers: [Int: AsyncStream<SyncStatus>.Continuation] = [:]
    private var nextObserver = 0
    private var lastPublished: SyncStatus?
    /// The batch after the last one sent, read and encoded while that one was on the wire.
    private var prepared: PreparedBatch?
    /// The write that records the last acknowledgement, running while the next batch is sent.
    private var recording: Task<SyncState, any Error>?

    /// Prepares to sync `log` to `configuration.remote`; nothing is sent yet.
    ///
    /// - parameters:
    ///   - sleep: how the engine waits between tries (the default really sleeps).
    ///   - pulledKeys: the key effects of pulled events (a store's domain layer passes them).
    /// - throws: ``SyncError/invalidRemote(_:)`` for an unusable URL or setting,
    ///   ``SyncError/storage(_:)`` when the sync state cannot be opened.
    public init(log: EventLog, configuration: SyncConfiguration,
                logger: Logger = Logger(label: "chronicle.sync"),
                sleep: @escaping Sleep = { try await Task.sleep(for: $0) },
                pulledKeys: PulledKeys? = nil) throws(SyncError) {
        try configuration.validate()
        self.log = log
        self.configuration = configuration
        self.client = try SyncClient(remote: configuration.remote, token: configuration.token,
                                     requestTimeout: configuration.requestTimeout)
        self.store = try SyncStateStore(log: log)
        self.state = try store.load()
        self.sleep = sleep
        self.pulledKeys = pulledKeys
        self.logger = logger
        self.batchLimit = configuration.batchSize
        self.phase = SyncStatus.restingPhase(state)
    }

    deinit {
        for observer in observers.values { observer.finish() }
        client.invalidate()
    }

    // MARK: - Status

    /// The stored sync status of `log`, without a remote (what `chronicle sync status` shows).
    public static func status(of log: EventLog) throws(SyncError) -> SyncStatus {
        let state = try SyncStateStore(log: log).load()
        return SyncStatus(state: state, head: try head(of: log), phase: SyncStatus.restingPhase(state))
    }

    /// The status now (re-read from the store: another process may have pushed).
    public func status() throws(SyncError) -> SyncStatus {
        state = try store.load()
        return currentStatus()
    }

    /// The current status, then each change: pending count, errors, phase. The newest value
    /// is kept when the reader is slow, which is what a UI wants.
    public func statusUpdates() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextObserver
        nextObserver += 1
        observers[id] = continuation
        continuation.yield(currentStatus())
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(id) }
        }
        return stream
    }

    // MARK: - Triggers

    /// Asks a running ``run(stopOnPermanentError:)`` to push now: it skips a pending
    /// backoff wait and resumes after a permanent error (say, once the token was fixed).
    public nonisolated func syncNow() {
        waker.wake(.manual)
    }

    /// Tells a running ``run(stopOnPermanentError:)`` that the network is back: a pending
    /// backoff wait ends and the next try starts at once.
    public nonisolated func networkIsBack() {
        waker.wake(.network)
    }

    // MARK: - Push once

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

    private func finish(_ summary: PushSummary) -> PushSummary {
        var summary = summary
        let status = currentStatus()
        summary.lastAckedPosition = status.lastAckedPosition
        summary.pending = status.pending
        return summary
    }

    // MARK: - Run

    /// Pushes as events arrive until the task is cancelled: after appends (debounced by
    /// `configuration.debounce`), every `configuration.pollInterval`, on ``syncNow()`` and
    /// on ``networkIsBack()``. With a `configuration.pullInterval`, it also pulls after each
    /// push that brought the remote up to date, at least that often. Retryable failures back off per the policy, without an
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
        let watcher = Task { [log, waker, weak self] in
            var seen = (try? log.head()) ?? 0
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
        var pulledAt: ContinuousClock.Instant?
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
                   pulledAt.map({ ContinuousClock.now - $0 >= interval }) ?? true {
                    outcome = try await drainPulls()
                    pulledAt = ContinuousClock.now
                }
            } catch is CancellationError {
                return
            }
            switch outcome {
            case .upToDate:
                phase = .idle
                publish()
                let wait = configuration.pullInterval.map { min($0, configuration.pollInterval) } ?? configuration.pollInterval
                let reason = await waker.wait(accepting: [.append, .manual, .network], timeout: wait) { try await Task.sleep(for: $0) }
                if reason == .manual || reason == .network { pulledAt = nil }
                if reason == .append, configuration.debounce > .zero {
                    try? await Task.sleep(for: configuration.debounce)
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

    enum DrainOutcome {
        case upToDate
        case failed(SyncError, retryAfter: Duration?)
    }

    /// Pushes batches until the log is acknowledged or one try fails.
    private func drain() async throws -> DrainOutcome {
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

    private enum Step {
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
    private func pushNextBatch() async throws -> Step {
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
            let record: @Sendable (inout SyncState) -> Void = { state in
                state.ackedPosition = max(state.ackedPosition, ackedTo)
                state.attempts = 0
                state.lastError = nil
                state.lastErrorIsPermanent = false
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
                state.lastError = error.description
                state.lastErrorIsPermanent = !error.isRetryable
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

    func scheduleRetry(after delay: Duration, because error: SyncError) throws(SyncError) {
        let next = Self.nowMilliseconds() + Int64(delay.seconds * 1000)
        state = try store.update { $0.nextTryAt = next }
        phase = .backingOff(until: Date(timeIntervalSince1970: Double(next) / 1000))
        logger.info("retrying later", metadata: ["in": "\(delay.formatted)", "error": "\(error)"])
        publish()
    }

    // MARK: - Helpers

    private func currentStatus() -> SyncStatus {
        SyncStatus(state: state, head: (try? Self.head(of: log)) ?? state.ackedPosition, phase: phase,
                   attemptsThisRun: attemptsThisRun)
    }

    func publish() {
        let status = currentStatus()
        guard status != lastPublished else { return }
        lastPublished = status
        for observer in observers.values { observer.yield(status) }
    }

    private func removeObserver(_ id: Int) {
        observers[id] = nil
    }

    /// Serializes pushes: ``push()`` and ``run(stopOnPermanentError:)`` never send the same batch twice at once.
    func acquire() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { queue.append($0) }
    }

    func release() {
        if queue.isEmpty {
            busy = false
        } else {
            queue.removeFirst().resume()
        }
    }

    private static func head(of log: EventLog) throws(SyncError) -> UInt64 {
        do {
            return try log.head()
        } catch {
            throw .storage("cannot read the log: \(error)")
        }
    }

    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }
}

import ChronicleLog
import Foundation
import Logging

/// Pushes a store's events to its one remote, in order, in batches, and pulls everyone's
/// events from it, retrying by the protocol's rules (docs/PROTOCOL.md).
///
/// One actor owns the sync state; the state itself lives in the log's LMDB environment
/// (named database `sync`), so a restarted process resumes where the last one stopped.
/// The engine only reads the log: it never blocks an append. Its parts: the pusher
/// (`SyncEngine+Push.swift`), the puller (`SyncEngine+Pull.swift`) and the scheduler that
/// decides when each runs and how long to wait (`SyncEngine+Run.swift`); every wait goes
/// through the injected ``Sleep``.
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
    /// Waits for a duration: every wait of the engine (backoff, poll, debounce) goes through
    /// it. Tests pass one that records the waits instead of sleeping.
    public typealias Sleep = @Sendable (Duration) async throws -> Void
    /// The effects of a page of pulled events on the log's keys (see ``EventLog/ingest(_:keys:)``):
    /// what the store's own commands would have claimed, released or touched for them, so that
    /// local decisions see what was pulled. Called before the page is stored, in server order.
    public typealias PulledKeys = @Sendable ([RecordedEvent]) throws -> [AppendKey]

    /// The log this engine pushes.
    public nonisolated let log: EventLog
    /// The remote and the settings this engine syncs with.
    public nonisolated let configuration: SyncConfiguration

    let client: SyncClient
    let store: SyncStateStore
    let sleep: Sleep
    let pulledKeys: PulledKeys?
    let logger: Logger
    nonisolated let waker = SyncWaker()

    var state: SyncState
    var phase: SyncStatus.Phase = .idle
    /// Failed tries in a row since this engine's current push, pull or run began (the stored
    /// count goes on across processes, for the backoff; people count from 1 in each run).
    var attemptsThisRun = 0
    var batchLimit: Int
    var running = false
    /// A running ``run(stopOnPermanentError:)`` learns of the server's events by waiting on it
    /// (``watchServer()``) rather than by pulling at intervals.
    var serverWaits = false
    private var busy = false
    private var queue: [CheckedContinuation<Void, Never>] = []
    private var observers: [Int: AsyncStream<SyncStatus>.Continuation] = [:]
    private var nextObserver = 0
    private var lastPublished: SyncStatus?
    /// The batch after the last one sent, read and encoded while that one was on the wire.
    var prepared: PreparedBatch?
    /// The write that records the last acknowledgement, running while the next batch is sent.
    var recording: Task<SyncState, any Error>?

    /// A logger that writes nothing: the engine's default, so a library in an app stays quiet
    /// unless the app passes its own (the `chronicle` CLI passes one that writes to stderr).
    public static let quietLogger = Logger(label: "chronicle.sync") { _ in SwiftLogNoOpLogHandler() }

    /// Prepares to sync `log` to `configuration.remote`; nothing is sent yet.
    ///
    /// - parameters:
    ///   - logger: where the engine logs tries, failures and backoffs (quiet by default).
    ///   - sleep: how the engine waits between tries (the default really sleeps).
    ///   - pulledKeys: the key effects of pulled events (a store's domain layer passes them).
    /// - throws: ``SyncError/invalidRemote(_:)`` for an unusable URL or setting,
    ///   ``SyncError/storage(_:)`` when the sync state cannot be opened.
    public init(log: EventLog, configuration: SyncConfiguration,
                logger: Logger = SyncEngine.quietLogger,
                sleep: @escaping Sleep = { try await Task.sleep(for: $0) },
                pulledKeys: PulledKeys? = nil) throws(SyncError) {
        try configuration.validate()
        self.log = log
        self.configuration = configuration
        self.client = try SyncClient(remote: configuration.remote,
                                     tokenProvider: configuration.tokenProvider ?? configuration.token.map(SyncTokenProvider.fixed),
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

    // MARK: - Helpers

    func currentStatus() -> SyncStatus {
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

    static func head(of log: EventLog) throws(SyncError) -> UInt64 {
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

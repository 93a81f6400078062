import Foundation

/// What a store's sync is doing, for an app's UI and for `chronicle sync status`.
///
/// ```swift
/// for await status in await engine.statusUpdates() {
///     badge.text = status.pending == 0 ? "Synced" : "\(status.pending) to send"
/// }
/// ```
public struct SyncStatus: Sendable, Hashable {
    /// What a store's sync is doing at a given moment.
    public enum Phase: Sendable, Hashable {
        /// Nothing in flight: up to date, or waiting for new events.
        case idle
        /// A batch is on its way.
        case pushing
        /// A page of the remote's events is on its way.
        case pulling
        /// A try failed and may succeed later; the next one is due at the given time.
        case backingOff(until: Date)
        /// A try failed for good (a 4xx such as 400 or 401): nothing is retried until
        /// ``SyncEngine/syncNow()`` or a restart.
        case stopped
    }

    /// Events in the log the remote has not acknowledged yet: log head − acknowledged position.
    public var pending: UInt64
    /// Every event up to this position is acknowledged.
    public var lastAckedPosition: UInt64
    /// The log's last position.
    public var head: UInt64
    /// Failed tries since the last acknowledged batch, counted across processes (it drives
    /// the backoff, which survives a restart).
    public var attempts: Int
    /// Failed tries in a row since this engine's current push, pull or run began (from 1 in
    /// each run; 0 when no engine reports it).
    public var attemptsThisRun: Int
    /// Why the last try failed; `nil` after a success.
    public var lastError: String?
    /// The server refused the last try because its operator revoked this device: nothing
    /// syncs until they reinstate it (the app may tell its user so).
    public var deviceRevoked: Bool
    /// When the next try is due after a retryable failure.
    public var nextTryAt: Date?
    /// When the last batch was acknowledged.
    public var lastSuccessAt: Date?
    /// The server position of the last event pulled and merged (0: nothing pulled yet).
    public var pulledPosition: UInt64
    /// What sync is doing now: idle, pushing, pulling, backing off or stopped.
    public var phase: Phase
    /// What sync has done over the store's life: events pushed and pulled, failed tries.
    public var counters: SyncCounters

    init(state: SyncState, head: UInt64, phase: Phase, attemptsThisRun: Int = 0) {
        self.pending = head > state.ackedPosition ? head - state.ackedPosition : 0
        self.lastAckedPosition = state.ackedPosition
        self.head = head
        self.attempts = state.attempts
        self.attemptsThisRun = attemptsThisRun
        self.lastError = state.lastError
        self.deviceRevoked = state.deviceRevoked
        self.nextTryAt = state.nextTryAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        self.lastSuccessAt = state.lastSuccessAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        self.pulledPosition = state.pulledPosition
        self.phase = phase
        self.counters = state.counters
    }

    /// The stored phase when no engine runs: stopped after a permanent error, backing off
    /// while a retry is due, else idle.
    static func restingPhase(_ state: SyncState, now: Date = Date()) -> Phase {
        if state.lastErrorIsPermanent { return .stopped }
        if let next = state.nextTryAt, Double(next) / 1000 > now.timeIntervalSince1970 {
            return .backingOff(until: Date(timeIntervalSince1970: Double(next) / 1000))
        }
        return .idle
    }
}

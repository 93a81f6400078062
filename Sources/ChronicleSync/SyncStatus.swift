import Foundation

/// What a store's sync is doing, for an app's UI and for `chronicle sync status`.
///
/// ```swift
/// for await status in await engine.statusUpdates() {
///     badge.text = status.pending == 0 ? "Synced" : "\(status.pending) to send"
/// }
/// ```
public struct SyncStatus: Sendable, Hashable {
    public enum Phase: Sendable, Hashable {
        /// Nothing in flight: up to date, or waiting for new events.
        case idle
        /// A batch is on its way.
        case pushing
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
    /// Failed tries since the last acknowledged batch.
    public var attempts: Int
    /// Why the last try failed; `nil` after a success.
    public var lastError: String?
    /// When the next try is due after a retryable failure.
    public var nextTryAt: Date?
    /// When the last batch was acknowledged.
    public var lastSuccessAt: Date?
    public var phase: Phase

    init(state: SyncState, head: UInt64, phase: Phase) {
        self.pending = head > state.ackedPosition ? head - state.ackedPosition : 0
        self.lastAckedPosition = state.ackedPosition
        self.head = head
        self.attempts = state.attempts
        self.lastError = state.lastError
        self.nextTryAt = state.nextTryAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        self.lastSuccessAt = state.lastSuccessAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }
        self.phase = phase
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

/// What ``SyncEngine/push(maxAttempts:)`` did.
public struct PushSummary: Sendable, Hashable {
    public enum Outcome: Sendable, Hashable {
        /// Every event in the log is acknowledged.
        case complete
        /// Retryable failures reached the attempt limit; the events stay pending.
        case gaveUp(SyncError, attempts: Int)
        /// A permanent failure (a 4xx such as 400 or 401); the events stay pending.
        case stopped(SyncError)
    }

    public var outcome: Outcome
    /// Events acknowledged during this push.
    public var eventsAcknowledged = 0
    /// Of those, the ones the server did not have yet.
    public var accepted = 0
    /// Of those, the ones it already had (an earlier push whose answer was lost).
    public var duplicates = 0
    /// Batches acknowledged.
    public var batches = 0
    /// HTTP requests made, failed ones included.
    public var requests = 0
    /// The waits between tries, in order.
    public var waits: [Duration] = []
    /// Why each failed try failed, in order.
    public var failures: [SyncError] = []
    /// The acknowledged position and pending count when the push ended.
    public var lastAckedPosition: UInt64 = 0
    public var pending: UInt64 = 0

    /// `true` when every event is acknowledged.
    public var isComplete: Bool { outcome == .complete }

    /// The failure that ended the push, if any.
    public var failure: SyncError? {
        switch outcome {
        case .complete: nil
        case .gaveUp(let error, _), .stopped(let error): error
        }
    }
}

import Foundation

/// What ``SyncEngine/push()`` did.
public struct PushSummary: Sendable, Hashable {
    /// How a push ended: everything acknowledged, given up after repeated failures, or stopped by a permanent one.
    public enum Outcome: Sendable, Hashable {
        /// Every event in the log is acknowledged.
        case complete
        /// Retryable failures reached the attempt limit; the events stay pending.
        case gaveUp(SyncError, attempts: Int)
        /// A permanent failure (a 4xx such as 400 or 401); the events stay pending.
        case stopped(SyncError)
    }

    /// How the push ended.
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
    /// Events still unacknowledged when the push ended.
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

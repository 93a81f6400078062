/// What ``SyncEngine/pull()`` did.
public struct PullSummary: Sendable, Hashable {
    /// Caught up, or why the pull ended short (the same cases as a push's).
    public var outcome: PushSummary.Outcome
    /// Events the server sent.
    public var received = 0
    /// Of those, the ones stored now (the rest were in the log already: this store's own
    /// events coming back, or a page pulled before whose cursor was not yet recorded).
    public var stored = 0
    /// Pages read.
    public var pages = 0
    /// HTTP requests made, failed ones included.
    public var requests = 0
    /// The waits between tries, in order.
    public var waits: [Duration] = []
    /// Why each failed try failed, in order.
    public var failures: [SyncError] = []
    /// The server position of the last event pulled when the pull ended.
    public var pulledPosition: UInt64 = 0

    /// `true` when the store caught up with the server.
    public var isComplete: Bool { outcome == .complete }

    /// The failure that ended the pull, if any.
    public var failure: SyncError? {
        switch outcome {
        case .complete: nil
        case .gaveUp(let error, _), .stopped(let error): error
        }
    }
}

/// How far a rebuild is.
public struct RebuildProgress: Sendable, Equatable {
    /// Events replayed so far.
    public var done: UInt64
    /// Events to replay (it grows when events are appended meanwhile).
    public var total: UInt64
    /// The average speed so far.
    public var eventsPerSecond: Double
    /// Time since the rebuild started.
    public var elapsed: Duration

    /// Makes a progress report from its parts.
    public init(done: UInt64, total: UInt64, eventsPerSecond: Double, elapsed: Duration) {
        self.done = done
        self.total = total
        self.eventsPerSecond = eventsPerSecond
        self.elapsed = elapsed
    }

    /// `done` of `total` events, at the average speed since `start`.
    public init(done: UInt64, total: UInt64, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        self.init(done: done, total: total, eventsPerSecond: seconds > 0 ? Double(done) / seconds : 0, elapsed: elapsed)
    }

    /// The time left at the average speed so far, when it can be told.
    public var remaining: Duration? {
        guard eventsPerSecond > 0, total >= done else { return nil }
        return .milliseconds(Int64(Double(total - done) / eventsPerSecond * 1000))
    }
}

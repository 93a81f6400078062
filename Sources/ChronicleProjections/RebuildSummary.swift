/// What a rebuild of the stored entities did.
public struct RebuildSummary: Sendable, Equatable {
    /// The log position the rebuilt entities include.
    public var position: UInt64
    /// Events read from the log.
    public var eventsRead: UInt64
    /// Events the model could not read (another app's, a newer version's, unreadable data):
    /// kept in the log, shown nowhere.
    public var skippedEvents: UInt64
    /// How long it took.
    public var elapsed: Duration
    /// The average speed.
    public var eventsPerSecond: Double

    /// A summary made of its parts.
    public init(position: UInt64, eventsRead: UInt64, skippedEvents: UInt64, elapsed: Duration, eventsPerSecond: Double) {
        self.position = position
        self.eventsRead = eventsRead
        self.skippedEvents = skippedEvents
        self.elapsed = elapsed
        self.eventsPerSecond = eventsPerSecond
    }
}

/// What a rebuild did.
public struct RebuildSummary: Sendable, Equatable {
    /// The rebuilt projections.
    public var projections: [ProjectionName]
    /// The log position the rebuilt models include.
    public var position: UInt64
    /// Events read from the log.
    public var eventsRead: UInt64
    /// Events the projections skipped (unknown type or undecodable data).
    public var skippedEvents: UInt64
    /// How long it took.
    public var elapsed: Duration
    /// The average speed.
    public var eventsPerSecond: Double
    /// Entities in each rebuilt model (users, todos, days).
    public var entries: [ProjectionName: Int]
    /// How many of the build's write transactions ran again after the map grew halfway
    /// through them (each one's work done twice): what ``MapGrowthForecast`` saves.
    var transactionsRunAgain = 0

    /// A summary made of its parts.
    public init(projections: [ProjectionName], position: UInt64, eventsRead: UInt64, skippedEvents: UInt64,
                elapsed: Duration, eventsPerSecond: Double, entries: [ProjectionName: Int]) {
        self.projections = projections
        self.position = position
        self.eventsRead = eventsRead
        self.skippedEvents = skippedEvents
        self.elapsed = elapsed
        self.eventsPerSecond = eventsPerSecond
        self.entries = entries
    }
}

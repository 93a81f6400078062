/// How to open an event log: its map, durability, polling, group commits and stream index.
///
/// A plain value, so that an app passes it to `ChronicleStore` with `import Chronicle` alone;
/// the log itself (`EventLog`, operator SPI) names it `EventLog.Options`.
public struct EventLogOptions: Sendable {
    /// The initial LMDB map size; it grows by itself.
    public var initialMapSize: Int
    /// Skip fsync at commit: fast, not durable. For scratch stores and replays only.
    public var noSync: Bool
    /// How often an idle tail re-reads the log to notice other processes' appends.
    public var pollInterval: Duration
    /// The most events one group commit writes.
    public var maxGroupEvents: Int
    /// Run `EventLog.checkHead()` when opening, refusing a store whose last record is
    /// damaged. Everything but `verify` (which must open a damaged store to report on it)
    /// should turn it on; `chronicle` does.
    public var checkHeadOnOpen: Bool
    /// How many events may follow the stream index's checkpoint before appends merge them
    /// into the index on disk, a sixteenth of them per write transaction (and
    /// write the touches of append keys since the last merge into theirs). Until then they
    /// are indexed in memory, rebuilt from the log when a store opens (so each process reads
    /// at most about this many events to catch up; a log that a process appended to merges
    /// them as it closes). Larger: fewer index writes, each page of the index written once
    /// for more events; more memory (about 200 bytes an event) and a longer catch-up.
    public var streamIndexCheckpoint: Int

    /// Makes options; the defaults: a 64 MiB initial map, durable commits, a 50 ms poll, 20,000 events
    /// a group commit, no head check on open, and a stream index merge every 200,000 events.
    public init(initialMapSize: Int = 64 << 20, noSync: Bool = false,
                pollInterval: Duration = .milliseconds(50), maxGroupEvents: Int = 20_000,
                checkHeadOnOpen: Bool = false, streamIndexCheckpoint: Int = 200_000) {
        self.initialMapSize = initialMapSize
        self.noSync = noSync
        self.pollInterval = pollInterval
        self.maxGroupEvents = maxGroupEvents
        self.checkHeadOnOpen = checkHeadOnOpen
        self.streamIndexCheckpoint = streamIndexCheckpoint
    }
}

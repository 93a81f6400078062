import Foundation

/// An event created by another replica, as a sync server receives it: everything but the position.
public struct ForeignEvent: Sendable, Hashable {
    public var id: UUID
    public var stream: String
    public var version: UInt64
    public var type: String
    public var timestampMilliseconds: Int64
    public var origin: String
    public var data: Data
    /// The position the sync server gave the event, when a pull brought it: recorded for the
    /// event (stored now or already here), so merges can order it (``EventLog/upstreamPositions(of:)``).
    public var upstreamPosition: UInt64?

    public init(id: UUID, stream: String, version: UInt64, type: String, timestampMilliseconds: Int64,
                origin: String, data: Data, upstreamPosition: UInt64? = nil) {
        self.id = id
        self.stream = stream
        self.version = version
        self.type = type
        self.timestampMilliseconds = timestampMilliseconds
        self.origin = origin
        self.data = data
        self.upstreamPosition = upstreamPosition
    }
}

/// What an ingest did.
public struct IngestResult: Sendable, Hashable {
    /// Events stored now.
    public var accepted: Int
    /// Events whose id was already stored (or repeated in the batch).
    public var duplicates: Int
    /// The log's last position after the ingest.
    public var head: UInt64
}

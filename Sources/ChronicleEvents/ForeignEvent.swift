import Foundation

/// An event created by another replica, as a sync server receives it: everything but the position.
public struct ForeignEvent: Sendable, Hashable {
    /// The event's id, kept as it is: ingesting an id already stored stores nothing.
    public var id: UUID
    /// The stream the event belongs to.
    public var stream: String
    /// Its version in its stream, from 1.
    public var version: UInt64
    /// The event's type name, for example `"TodoCreated"`.
    public var type: String
    /// The version of the shape of `data` (see ``RecordedEvent/schemaVersion``).
    public var schemaVersion: UInt16
    /// When it happened: UTC milliseconds since 1970.
    public var timestampMilliseconds: Int64
    /// The device id of the replica that created it.
    public var origin: String
    /// The payload: the UTF-8 bytes of one JSON object.
    public var data: Data
    /// The position the sync server gave the event, when a pull brought it: recorded for the
    /// event (stored now or already here), so merges can order it (``EventLog/upstreamPositions(of:)``).
    public var upstreamPosition: UInt64?

    /// Makes an event from its parts; they are checked when it is ingested, not here.
    public init(id: UUID, stream: String, version: UInt64, type: String, schemaVersion: UInt16 = 1, timestampMilliseconds: Int64,
                origin: String, data: Data, upstreamPosition: UInt64? = nil) {
        self.id = id
        self.stream = stream
        self.version = version
        self.type = type
        self.schemaVersion = schemaVersion
        self.timestampMilliseconds = timestampMilliseconds
        self.origin = origin
        self.data = data
        self.upstreamPosition = upstreamPosition
    }
}

extension ForeignEvent {
    /// The event as a recorded one at `position` (no hash: it is not stored).
    public func recorded(at position: UInt64 = 0) -> RecordedEvent {
        RecordedEvent(position: position, id: id, stream: stream, version: version, type: type, schemaVersion: schemaVersion,
                      timestampMilliseconds: timestampMilliseconds, origin: origin, data: data)
    }
}

extension RecordedEvent {
    /// The event as another replica stores it (a pull: `upstreamPosition` is the server's position).
    public func foreign(upstreamPosition: UInt64? = nil) -> ForeignEvent {
        ForeignEvent(id: id, stream: stream, version: version, type: type, schemaVersion: schemaVersion,
                     timestampMilliseconds: timestampMilliseconds, origin: origin, data: data, upstreamPosition: upstreamPosition)
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

    /// Makes a result from its parts.
    public init(accepted: Int, duplicates: Int, head: UInt64) {
        self.accepted = accepted
        self.duplicates = duplicates
        self.head = head
    }
}

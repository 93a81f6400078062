import Foundation

/// An event about to be appended: the log adds position, version, origin and hash.
public struct NewEvent: Sendable, Hashable {
    /// Unique in the log; appending an id twice is a no-op. Defaults to a fresh UUIDv7.
    public var id: UUID
    /// The event's type name, for example `"TodoCreated"`.
    public var type: String
    /// The version of the shape of `data` for this type (see ``RecordedEvent/schemaVersion``).
    public var schemaVersion: UInt16
    /// The payload: the UTF-8 bytes of one JSON object.
    public var data: Data
    /// When it happened; defaults to now (stored with millisecond precision).
    public var timestamp: Date

    /// Makes an event to append; the log checks its type and data when it is appended.
    public init(id: UUID = UUIDv7.make(), type: String, schemaVersion: UInt16 = 1, data: Data, timestamp: Date = Date()) {
        self.id = id
        self.type = type
        self.schemaVersion = schemaVersion
        self.data = data
        self.timestamp = timestamp
    }
}

/// The events to append to one stream, with the version that stream must be at.
public struct StreamAppend: Sendable, Hashable {
    /// The stream to append to.
    public var stream: String
    /// The version the stream must be at, or the whole append is refused.
    public var expected: ExpectedVersion
    /// The events to append, in order.
    public var events: [NewEvent]

    /// Makes an append; by default the stream may be at any version.
    public init(stream: String, expected: ExpectedVersion = .any, events: [NewEvent]) {
        self.stream = stream
        self.expected = expected
        self.events = events
    }
}

extension [StreamAppend] {
    /// How many events the appends hold together.
    var eventCount: Int { reduce(0) { $0 + $1.events.count } }
}

/// What an append did.
public struct AppendResult: Sendable, Hashable {
    /// The position of each event, in the order given; the original position for an id already stored.
    public var positions: [UInt64]
    /// How many events were new (the rest were already stored).
    public var appended: Int
    /// The log's last position after the append.
    public var head: UInt64
}

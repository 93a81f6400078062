import Foundation

/// An event as stored in the log. A plain value: fully decoded, it never refers to LMDB memory.
public struct RecordedEvent: Sendable, Hashable {
    /// Global, gap-free, starting at 1.
    public var position: UInt64
    /// Unique in the log.
    public var id: UUID
    /// The stream the event belongs to.
    public var stream: String
    /// Per stream, starting at 1.
    public var version: UInt64
    /// The event's type name, for example `"TodoCreated"`.
    public var type: String
    /// The version of the shape of `data` for this type, as its writer knew it (1 unless
    /// the type's shape changed since; readers upcast older shapes to the current one).
    public var schemaVersion: UInt16
    /// UTC milliseconds since 1970.
    public var timestampMilliseconds: Int64
    /// The device id of the replica that created it.
    public var origin: String
    /// The payload: UTF-8 bytes of one JSON object.
    public var data: Data
    /// SHA-256 over the previous event's hash and this event's content.
    public var hash: [UInt8]

    /// Makes an event from its parts; leave out `hash` for an event that is not stored.
    public init(position: UInt64, id: UUID, stream: String, version: UInt64, type: String, schemaVersion: UInt16 = 1,
                timestampMilliseconds: Int64, origin: String, data: Data, hash: [UInt8] = []) {
        self.position = position
        self.id = id
        self.stream = stream
        self.version = version
        self.type = type
        self.schemaVersion = schemaVersion
        self.timestampMilliseconds = timestampMilliseconds
        self.origin = origin
        self.data = data
        self.hash = hash
    }

    /// The timestamp as a `Date`.
    public var timestamp: Date { Date(timeIntervalSince1970: Double(timestampMilliseconds) / 1000) }
}

import Foundation
import UUIDText

/// A stored event read in place: the fields of its record over the log's memory, checked as
/// ``EventLog/read(after:limit:maxBytes:)`` checks them (checksum, lengths, UTF-8 texts).
///
/// Valid only during the call that hands it over (``StoredRecords/forEach(_:)``): its buffers
/// point into memory that call owns. A reader that needs few of an event's fields (a rebuild
/// decodes the domain event from `type`, `stream` and `data`) reads them here instead of
/// copying every field into a ``RecordedEvent``: four allocations an event fewer.
public struct RecordView {
    /// Global, gap-free, starting at 1.
    public let position: UInt64
    /// Per stream, starting at 1.
    public let version: UInt64
    /// UTC milliseconds since 1970.
    public let timestampMilliseconds: Int64
    /// The version of the shape of `data` for this type.
    public let schemaVersion: UInt16
    /// The stream's name, valid UTF-8.
    public let stream: UnsafeRawBufferPointer
    /// The event's type name, valid UTF-8.
    public let type: UnsafeRawBufferPointer
    /// The device id of the replica that created it, valid UTF-8.
    public let origin: UnsafeRawBufferPointer
    /// The payload: UTF-8 bytes of one JSON object.
    public let data: UnsafeRawBufferPointer
    /// The whole record (for the fields not read here).
    let record: UnsafeRawBufferPointer

    /// Whether the event was created by the replica with this device id (compared as bytes).
    public func hasOrigin(_ deviceID: String) -> Bool {
        deviceID.sameBytes(as: origin)
    }

    /// The event copied out of the log's memory.
    public func recorded() -> RecordedEvent {
        let id = record.loadUnaligned(fromByteOffset: 30, as: uuid_t.self)
        return RecordedEvent(position: position, id: UUID(uuid: id), stream: String(decoding: stream, as: UTF8.self),
                             version: version, type: String(decoding: type, as: UTF8.self), schemaVersion: schemaVersion,
                             timestampMilliseconds: timestampMilliseconds, origin: String(decoding: origin, as: UTF8.self),
                             data: Data(data), hash: Array(record[RecordCodec.hashRange]))
    }
}

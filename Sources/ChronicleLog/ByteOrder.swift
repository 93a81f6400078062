import Foundation

extension Array where Element == UInt8 {
    /// Appends `value` big-endian, so keys sort in numeric order.
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}

extension UnsafeRawBufferPointer {
    /// Reads a big-endian integer at `offset` (caller checks bounds).
    func readBigEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// Reads a big-endian integer at `offset` of a key or value LMDB handed back: a damaged
    /// file can cut it short, which is refused, never read past.
    /// - throws: ``EventLogError/corruptRecord(position:reason:)`` naming `what`.
    func storedBigEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int = 0,
                                               _ what: @autoclosure () -> String) throws(EventLogError) -> T {
        guard offset >= 0, count - offset >= MemoryLayout<T>.size else {
            throw .corruptRecord(position: 0, reason: "\(what()) holds \(count) bytes, too few")
        }
        return readBigEndian(T.self, at: offset)
    }
}

/// Key encodings of the log's databases.
enum Keys {
    /// `events` key: the position, big-endian.
    static func position(_ position: UInt64) -> [UInt8] {
        var key = [UInt8](); key.reserveCapacity(8); key.appendBigEndian(position); return key
    }
    /// `ids` key: the 16 UUID bytes (UUIDv7 sorts by time).
    static func id(_ id: UUID) -> [UInt8] { withUnsafeBytes(of: id.uuid) { Array($0) } }
    /// The prefix every `streams` key of `stream` starts with: a key is stream ‖ 0x00 ‖ position
    /// (big-endian), its value the stream version.
    static func streamPrefix(_ stream: String) -> [UInt8] { var key = Array(stream.utf8); key.append(0); return key }
}

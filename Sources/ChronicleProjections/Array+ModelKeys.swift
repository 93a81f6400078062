import Foundation

extension Array where Element == UInt8 {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    mutating func appendID(_ id: UUID) {
        Swift.withUnsafeBytes(of: id.uuid) { append(contentsOf: $0) }
    }
}

/// A UUID's bytes as two big-endian numbers: hashable, and sorting like the key bytes.
struct IDOrder: Comparable, Hashable {
    let high: UInt64
    let low: UInt64

    init(_ id: UUID) {
        (high, low) = withUnsafeBytes(of: id.uuid) { bytes in
            (UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
             UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
        }
    }

    /// The id whose 16 bytes begin at `offset` of `bytes` (a key's).
    init(in bytes: UnsafeRawBufferPointer, at offset: Int) throws(ProjectionError) {
        guard offset >= 0, bytes.count - offset >= 16 else { throw .corruptModel("a key of \(bytes.count) bytes") }
        high = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        low = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
    }

    static func < (a: IDOrder, b: IDOrder) -> Bool { (a.high, a.low) < (b.high, b.low) }
}

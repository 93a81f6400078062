import Foundation

/// A bounds-checked reader over a stored value.
struct ModelReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func take(_ count: Int) throws(ProjectionError) -> UnsafeRawBufferPointer {
        guard count >= 0, bytes.count - offset >= count else {
            throw .corruptModel("a value of \(bytes.count) bytes is truncated")
        }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(ProjectionError) -> T {
        T(bigEndian: try take(MemoryLayout<T>.size).loadUnaligned(as: T.self))
    }

    mutating func id() throws(ProjectionError) -> UUID {
        let b = try take(16)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    mutating func string(length: Int) throws(ProjectionError) -> String {
        String(decoding: try take(length), as: UTF8.self)
    }

    /// Whether everything has been read.
    var isAtEnd: Bool { offset == bytes.count }

    /// Everything left, as text.
    mutating func rest() -> String {
        defer { offset = bytes.count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset...]), as: UTF8.self)
    }
}

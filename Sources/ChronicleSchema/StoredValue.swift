import Foundation
import UUIDText

/// The stored form of one field value, shared by the stored read model's records (its
/// entities and aggregate rows) and read in place by ``ChronicleModel/Fields``: a kind (1), then its payload: text (4-byte
/// length, UTF-8), an integer (8), a number (8, IEEE 754), a boolean (1), ids (4-byte
/// count, 16 bytes each), or an id (16): a text that spells a UUID as Chronicle writes them
/// (lowercase, hyphenated), as every reference does, is kept as its 16 bytes and read back
/// as that text. Numbers are little-endian.
package enum StoredValue {
    package enum Kind: UInt8 { case text = 1, integer, number, boolean, ids, null, id }

    package static func append(_ value: ChronicleModel.FieldValue, to bytes: inout [UInt8]) {
        switch value {
        case .text(let text):
            let count = text.utf8.count
            // One spelling per id: the text read back is the one stored.
            if count == 36, let id = UUID(canonical: text) {
                bytes.append(Kind.id.rawValue)
                withUnsafeBytes(of: id.uuid) { bytes += $0 }
            } else {
                bytes.append(Kind.text.rawValue)
                append(UInt32(count), to: &bytes)
                bytes += text.utf8
            }
        case .integer(let number):
            bytes.append(Kind.integer.rawValue)
            append(UInt64(bitPattern: Int64(number)), to: &bytes)
        case .number(let number):
            bytes.append(Kind.number.rawValue)
            append(number.bitPattern, to: &bytes)
        case .boolean(let flag):
            bytes.append(Kind.boolean.rawValue)
            bytes.append(flag ? 1 : 0)
        case .ids(let ids):
            bytes.append(Kind.ids.rawValue)
            append(UInt32(ids.count), to: &bytes)
            for id in ids { withUnsafeBytes(of: id.uuid) { bytes += $0 } }
        case .null:
            bytes.append(Kind.null.rawValue)
        }
    }

    @inlinable
    package static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}

/// Reads stored bytes front to back; every read checks what is left. Inlinable: the stored
/// read model reads its records with it, several times an entity.
@frozen
package struct StoredBytesReader {
    package struct Short: Error {
        @inlinable
        package init() {}
    }
    package let bytes: UnsafeRawBufferPointer
    package var offset = 0

    @inlinable
    package init(bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    @inlinable
    package var remaining: Int { bytes.count - offset }

    @inlinable
    package mutating func byte() throws -> UInt8 {
        guard remaining >= 1 else { throw Short() }
        defer { offset += 1 }
        return bytes[offset]
    }

    // One concrete reader per width: a generic one, called from another module, ran
    // unspecialized (its metadata looked up at each call: a fifth of a read's time).
    @inlinable
    package mutating func integer(_: UInt16.Type) throws -> UInt16 { try load(UInt16.self) }
    @inlinable
    package mutating func integer(_: UInt32.Type) throws -> UInt32 { try load(UInt32.self) }
    @inlinable
    package mutating func integer(_: UInt64.Type) throws -> UInt64 { try load(UInt64.self) }

    @inlinable @inline(__always)
    mutating func load<T: FixedWidthInteger>(_: T.Type) throws -> T {
        guard remaining >= MemoryLayout<T>.size else { throw Short() }
        defer { offset += MemoryLayout<T>.size }
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// A value ``StoredValue/append(_:to:)`` wrote.
    package mutating func value() throws -> ChronicleModel.FieldValue {
        switch StoredValue.Kind(rawValue: try byte()) {
        case .text: return .text(try text())
        case .integer: return .integer(Int(Int64(bitPattern: try integer(UInt64.self))))
        case .number: return .number(Double(bitPattern: try integer(UInt64.self)))
        case .boolean: return .boolean(try byte() == 1)
        case .null: return .null
        case .id: return .text(try uuid().lowercasedString)
        case .ids:
            let count = Int(try integer(UInt32.self))
            guard count <= remaining / 16 else { throw Short() }
            return .ids(try (0..<count).map { _ in try uuid() })
        case nil: throw Short()
        }
    }

    @inlinable
    package mutating func text() throws -> String {
        let count = Int(try integer(UInt32.self))
        guard count <= remaining else { throw Short() }
        defer { offset += count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]), as: UTF8.self)
    }

    @inlinable
    package mutating func uuid() throws -> UUID {
        guard remaining >= 16 else { throw Short() }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 16])) }
        offset += 16
        return UUID(uuid: value)
    }

    @inlinable
    package mutating func skip(_ count: Int) throws {
        guard count >= 0, count <= remaining else { throw Short() }
        offset += count
    }

    /// From the start of stored values (a count (2), then each one's field (2) and value),
    /// moves to the value of field `index`, past its field number; false when none is stored.
    package mutating func seekValue(ofField index: Int) throws -> Bool {
        for _ in 0..<(try integer(UInt16.self)) {
            if Int(try integer(UInt16.self)) == index { return true }
            try skipValue()
        }
        return false
    }

    /// Steps over a value ``StoredValue/append(_:to:)`` wrote.
    @inlinable
    package mutating func skipValue() throws {
        switch StoredValue.Kind(rawValue: try byte()) {
        case .text: try skip(Int(try integer(UInt32.self)))
        case .integer, .number: try skip(8)
        case .boolean: try skip(1)
        case .id: try skip(16)
        case .null: break
        case .ids:
            let count = Int(try integer(UInt32.self))
            guard count <= remaining / 16 else { throw Short() }
            try skip(count * 16)
        case nil: throw Short()
        }
    }
}

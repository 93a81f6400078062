import Foundation
import UUIDText

/// The stored form of one field value, shared by the stored read model's records (its
/// entities and aggregate rows) and read in place by ``ChronicleModel/Fields``: a kind (1),
/// then its payload: text (its length as a varint, then UTF-8), an integer (8), a number (8,
/// IEEE 754), a boolean (1), ids (their count as a varint, 16 bytes each), an id (16) or a
/// day (4). A text that spells a UUID as Chronicle writes them (lowercase, hyphenated), as
/// every reference does, is kept as its 16 bytes and read back as that text; a text that
/// spells a day (`YYYY-MM-DD`, ten characters, digits and two hyphens), as every day field
/// does, is kept as its year (2) month (1) and day (1) and read back as that text. Numbers
/// are little-endian; a varint is LEB128 (7 bits a byte, low first, the high bit set on all
/// but the last), as short as it can be: one value has one spelling, so equal values are
/// equal bytes.
package enum StoredValue {
    package enum Kind: UInt8 { case text = 1, integer, number, boolean, ids, null, id, day }

    package static func append(_ value: ChronicleModel.FieldValue, to bytes: inout [UInt8]) {
        switch value {
        case .text(var text):
            text.withUTF8 { appendText(UnsafeRawBufferPointer($0), to: &bytes) }
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
            appendVarint(ids.count, to: &bytes)
            for id in ids { withUnsafeBytes(of: id.uuid) { bytes += $0 } }
        case .null:
            bytes.append(Kind.null.rawValue)
        }
    }

    /// Appends the text whose UTF-8 bytes are `utf8`: as an id when it spells one as Chronicle
    /// writes them, as a day when it spells one, else as text.
    package static func appendText(_ utf8: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        // One spelling per value: the text read back is the one stored.
        if utf8.count == 36, let id = UUID(canonical: utf8) {
            bytes.append(Kind.id.rawValue)
            withUnsafeBytes(of: id.uuid) { bytes += $0 }
        } else if let day = day(spelledBy: utf8) {
            bytes.append(Kind.day.rawValue)
            append(day.year, to: &bytes)
            bytes.append(day.month)
            bytes.append(day.day)
        } else {
            bytes.append(Kind.text.rawValue)
            appendVarint(utf8.count, to: &bytes)
            bytes += utf8
        }
    }

    /// The year, month and day `utf8` spells as `YYYY-MM-DD` (any digits: read back, they
    /// spell the same text); nil for any other text.
    package static func day(spelledBy utf8: UnsafeRawBufferPointer) -> (year: UInt16, month: UInt8, day: UInt8)? {
        ChronicleModel.dayDigits(utf8: utf8).map { (UInt16($0.year), UInt8($0.month), UInt8($0.day)) }
    }

    /// The text of a day kept as its year, month and day: `YYYY-MM-DD`.
    @inlinable
    package static func dayText(year: UInt16, month: UInt8, day: UInt8) -> String {
        let (year, month, day) = (Int(year), Int(month), Int(day))
        func digit(_ value: Int) -> UInt8 { UInt8(ascii: "0") + UInt8(value % 10) }
        // Ten ASCII bytes: a small string, made in place.
        return String(unsafeUninitializedCapacity: 10) { text in
            (text[0], text[1], text[2], text[3]) = (digit(year / 1000), digit(year / 100), digit(year / 10), digit(year))
            (text[4], text[7]) = (UInt8(ascii: "-"), UInt8(ascii: "-"))
            (text[5], text[6], text[8], text[9]) = (digit(month / 10), digit(month), digit(day / 10), digit(day))
            return 10
        }
    }

    /// Appends `value` (not negative) as a varint: 7 bits a byte, low first.
    @inlinable
    package static func appendVarint(_ value: Int, to bytes: inout [UInt8]) {
        var rest = UInt64(value)
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
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
        case .day: return .text(try day())
        case .ids:
            let count = try varint()
            guard count <= remaining / 16 else { throw Short() }
            return .ids(try (0..<count).map { _ in try uuid() })
        case nil: throw Short()
        }
    }

    /// A varint ``StoredValue/appendVarint(_:to:)`` wrote.
    @inlinable
    package mutating func varint() throws -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try self.byte()
            guard shift < 63 else { throw Short() }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        guard value <= UInt64(Int.max) else { throw Short() }
        return Int(value)
    }

    /// The text of a day kept as its year (2), month (1) and day (1).
    @inlinable
    package mutating func day() throws -> String {
        let year = try integer(UInt16.self)
        return StoredValue.dayText(year: year, month: try byte(), day: try byte())
    }

    @inlinable
    package mutating func text() throws -> String {
        let count = try varint()
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

    /// From the start of stored values (a count (2), then each one's field (a varint) and
    /// value), moves to the value of field `index`, past its field number; false when none is stored.
    package mutating func seekValue(ofField index: Int) throws -> Bool {
        for _ in 0..<(try integer(UInt16.self)) {
            if try varint() == index { return true }
            try skipValue()
        }
        return false
    }

    /// Steps over a value ``StoredValue/append(_:to:)`` wrote.
    @inlinable
    package mutating func skipValue() throws {
        switch StoredValue.Kind(rawValue: try byte()) {
        case .text: try skip(try varint())
        case .integer, .number: try skip(8)
        case .boolean: try skip(1)
        case .id: try skip(16)
        case .day: try skip(4)
        case .null: break
        case .ids:
            let count = try varint()
            guard count <= remaining / 16 else { throw Short() }
            try skip(count * 16)
        case nil: throw Short()
        }
    }
}

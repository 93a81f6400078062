import ChronicleSchema
import Foundation

/// The keys of a declared model's stored read model (``ModelStates``); entities and fields are
/// numbered by their place in the model, big-endian so that keys sort by entity, then field.
enum ModelStateKeys {
    /// Longer unique keys are stored as a hash of them (LMDB keys hold at most 511 bytes);
    /// a read checks every holder found against the key itself.
    static let longestUniqueKey = 256

    /// `deleted`: entity (2) · id (16). (A live entity's key in its entity's table is its id alone.)
    static func state(_ entity: Int, _ id: UUID) -> [UInt8] {
        withState(entity, id) { Array($0) }
    }

    /// Hands `body` ``state(_:_:)``'s key, laid on the stack: a fold looks entities up by it.
    static func withState<Result>(_ entity: Int, _ id: UUID, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        // 2 + 16 bytes, one after the other: every part is bytes, so there is no padding.
        var key = (UInt8(truncatingIfNeeded: entity >> 8), UInt8(truncatingIfNeeded: entity), id.uuid)
        return try withUnsafeBytes(of: &key, body)
    }

    /// Every key of `entity` begins so, in the tables that hold several entities' keys.
    static func prefix(_ entity: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: entity >> 8), UInt8(truncatingIfNeeded: entity)]
    }

    /// `unique`: entity (2) · field (2) · the key's length (4) · the key (or its hash) · then the
    /// holder's id (16), for a live entity whose unique field has that key.
    static func uniquePrefix(_ entity: Int, _ field: Int, key: String) -> [UInt8] {
        var text = Array(key.utf8)
        if text.count > longestUniqueKey { text = Array("#\(hash(text))".utf8) }
        var bytes = started(entity, field, room: 8 + text.count + 16)
        withUnsafeBytes(of: UInt32(text.count).bigEndian) { bytes += $0 }
        return bytes + text
    }

    /// `children`: entity (2) · reference field (2) · parent id (16) · then the child's id (16).
    static func childrenPrefix(_ entity: Int, _ field: Int, parent: UUID) -> [UInt8] {
        var key = started(entity, field, room: 4 + 16 + 16)
        append(parent, to: &key)
        return key
    }

    /// A key's first 4 bytes, `first` (2) · `second` (2), in a buffer with room for `room`
    /// bytes: its parts are appended, not concatenated (each concatenation an allocation).
    static func started(_ first: Int, _ second: Int, room: Int) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(room)
        key.append(UInt8(truncatingIfNeeded: first >> 8))
        key.append(UInt8(truncatingIfNeeded: first))
        key.append(UInt8(truncatingIfNeeded: second >> 8))
        key.append(UInt8(truncatingIfNeeded: second))
        return key
    }

    static func append(_ id: UUID, to key: inout [UInt8]) {
        withUnsafeBytes(of: id.uuid) { key += $0 }
    }

    /// The id in a key's last 16 bytes.
    static func trailingID(_ key: UnsafeRawBufferPointer) -> UUID? {
        guard key.count >= 16 else { return nil }
        // Not `UUID().uuid` as a buffer: that draws random bytes from the system for each id.
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: key[(key.count - 16)...])) }
        return UUID(uuid: value)
    }

    /// FNV-1a, 64 bits: stable across runs and platforms (Swift's `Hasher` is seeded per process).
    static func hash(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}

extension ModelStateKeys {
    /// Values of a text longer than this are indexed by their first bytes; a query checks each
    /// entity found against its own value.
    static let longestIndexedText = 300

    /// `values`: entity (2) · field (2) · the value, encoded so that keys sort as
    /// ``ChronicleModel/FieldValue/sortsBefore(_:)`` sorts values · then the entity's id (16).
    static func valuePrefix(_ entity: Int, _ field: Int, _ value: ChronicleModel.FieldValue) -> [UInt8] {
        var key = started(entity, field, room: 4 + 12 + 16)
        appendSortable(value, to: &key)
        return key
    }

    /// `value` as bytes that sort as it does among values of one field: false before true;
    /// numbers by value (a sign-flipped integer, a double's bits made to sort); text by its
    /// UTF-8 bytes (a 0 and a 1 escaped, then a 0 to end it, so that a shorter text sorts first).
    static func sortable(_ value: ChronicleModel.FieldValue) -> [UInt8] {
        var bytes: [UInt8] = []
        appendSortable(value, to: &bytes)
        return bytes
    }

    /// Appends ``sortable(_:)``'s bytes of `value` to `bytes`.
    static func appendSortable(_ value: ChronicleModel.FieldValue, to bytes: inout [UInt8]) {
        switch value {
        case .boolean(let flag):
            bytes += [0, flag ? 1 : 0]
        case .integer(let number):
            bytes.append(1)
            appendBigEndian(UInt64(bitPattern: Int64(number)) ^ (1 << 63), to: &bytes)
        case .number(let number):
            let bits = number.bitPattern
            bytes.append(1)
            appendBigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), to: &bytes)
        case .text(let text):
            bytes.append(2)
            // Most texts hold neither byte to escape: copied whole.
            let utf8 = text.utf8
            if utf8.count <= longestIndexedText, !utf8.contains(where: { $0 < 2 }) {
                bytes.append(contentsOf: utf8)
                bytes.append(0)
                return
            }
            for byte in utf8.prefix(longestIndexedText) {
                switch byte {
                case 0: bytes += [1, 1]
                case 1: bytes += [1, 2]
                default: bytes.append(byte)
                }
            }
            bytes.append(0)
        case .ids:
            bytes.append(3)
        case .null:
            bytes.append(4)
        }
    }

    /// Whether `sortable` (a value as ``sortable(_:)`` encodes it) may be a text cut to its
    /// first ``longestIndexedText`` bytes.
    static func mayBeCut(_ sortable: UnsafeRawBufferPointer.SubSequence) -> Bool {
        // A text's escaped bytes are at least as many as its own, plus its kind and its end.
        sortable.first == 2 && sortable.count >= longestIndexedText + 2
    }

    /// `rows`: aggregate (2) · the grouped value, as ``sortable(_:)`` encodes it · for a text
    /// longer than ``longestIndexedText``, a hash of it (texts that share their first bytes
    /// keep rows of their own).
    static func row(_ aggregate: Int, _ value: ChronicleModel.FieldValue) -> [UInt8] {
        var key: [UInt8] = []
        let room = if case .text(let text) = value { min(text.utf8.count, longestIndexedText) + 4 } else { 12 }
        key.reserveCapacity(room)
        key.append(UInt8(truncatingIfNeeded: aggregate >> 8))
        key.append(UInt8(truncatingIfNeeded: aggregate))
        appendSortable(value, to: &key)
        if case .text(let text) = value, text.utf8.count > longestIndexedText {
            key += Array(hash(Array(text.utf8)).utf8)
        }
        return key
    }

    private static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes += $0 }
    }
}

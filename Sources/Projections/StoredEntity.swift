import ChronicleSchema
import Foundation

/// One entity as the stored read model of a declared model keeps it (``ModelStates``): its
/// folded state, where the merge last applied to it, and where its unique values were written.
///
/// Stored compactly, fields by their place in the entity's declaration (the read model is
/// rebuilt whenever the model changes):
///
/// ```
/// flags (1: bit 0 deleted) · last applied position (8) · unique writes (1: count, then
/// field (2) and position (8) each) · values (2: count, then field (2), kind (1), payload)
/// ```
///
/// A payload is text (4-byte length, UTF-8), an integer (8), a number (8, IEEE 754), a boolean
/// (1) or ids (4-byte count, 16 bytes each); numbers are little-endian.
struct StoredEntity: Equatable {
    var state: ChronicleModel.EntityState
    /// The position of the event ranked last among those folded in (the merge's order).
    var lastApplied: UInt64
    /// Per unique field, the position of the write that gave its value.
    var uniqueWrites: [String: UInt64]

    private enum Kind: UInt8 { case text = 1, integer, number, boolean, ids }

    /// The stored bytes, fields placed by `entity`'s declaration.
    func encoded(by entity: ChronicleModel.Entity) -> [UInt8] {
        var bytes: [UInt8] = [state.isDeleted ? 1 : 0]
        bytes.reserveCapacity(64)
        Self.append(lastApplied, to: &bytes)
        let writes = entity.fields.indices.compactMap { index in uniqueWrites[entity.fields[index].name].map { (index, $0) } }
        bytes.append(UInt8(writes.count))
        for (index, position) in writes {
            Self.append(UInt16(index), to: &bytes)
            Self.append(position, to: &bytes)
        }
        let values = entity.fields.indices.compactMap { index in state.values[entity.fields[index].name].map { (index, $0) } }
        Self.append(UInt16(values.count), to: &bytes)
        for (index, value) in values {
            Self.append(UInt16(index), to: &bytes)
            switch value {
            case .text(let text):
                bytes.append(Kind.text.rawValue)
                let utf8 = Array(text.utf8)
                Self.append(UInt32(utf8.count), to: &bytes)
                bytes += utf8
            case .integer(let number):
                bytes.append(Kind.integer.rawValue)
                Self.append(UInt64(bitPattern: Int64(number)), to: &bytes)
            case .number(let number):
                bytes.append(Kind.number.rawValue)
                Self.append(number.bitPattern, to: &bytes)
            case .boolean(let flag):
                bytes.append(Kind.boolean.rawValue)
                bytes.append(flag ? 1 : 0)
            case .ids(let ids):
                bytes.append(Kind.ids.rawValue)
                Self.append(UInt32(ids.count), to: &bytes)
                for id in ids { withUnsafeBytes(of: id.uuid) { bytes += $0 } }
            }
        }
        return bytes
    }

    /// Reads what ``encoded(by:)`` wrote for entity `id`.
    /// - throws: ``ProjectionError/corruptModel(_:)`` when the bytes are not such a record.
    static func decode(_ bytes: UnsafeRawBufferPointer, id: UUID, entity: ChronicleModel.Entity) throws -> StoredEntity {
        var reader = ByteReader(bytes: bytes)
        do {
            let deleted = try reader.byte() & 1 == 1
            let lastApplied = try reader.integer(UInt64.self)
            var uniqueWrites: [String: UInt64] = [:]
            for _ in 0..<(try reader.byte()) {
                let field = try reader.field(of: entity)
                uniqueWrites[field.name] = try reader.integer(UInt64.self)
            }
            var values: [String: ChronicleModel.FieldValue] = [:]
            for _ in 0..<(try reader.integer(UInt16.self)) {
                let field = try reader.field(of: entity)
                switch Kind(rawValue: try reader.byte()) {
                case .text: values[field.name] = .text(try reader.text())
                case .integer: values[field.name] = .integer(Int(Int64(bitPattern: try reader.integer(UInt64.self))))
                case .number: values[field.name] = .number(Double(bitPattern: try reader.integer(UInt64.self)))
                case .boolean: values[field.name] = .boolean(try reader.byte() == 1)
                case .ids:
                    let count = Int(try reader.integer(UInt32.self))
                    guard count <= reader.remaining / 16 else { throw ByteReader.Short() }
                    values[field.name] = .ids(try (0..<count).map { _ in try reader.uuid() })
                case nil: throw ByteReader.Short()
                }
            }
            guard reader.remaining == 0 else { throw ByteReader.Short() }
            let state = ChronicleModel.EntityState(entity: entity.name, id: id, values: values, isDeleted: deleted)
            return StoredEntity(state: state, lastApplied: lastApplied, uniqueWrites: uniqueWrites)
        } catch {
            throw ProjectionError.corruptModel("the stored \(entity.name) \(id.uuidString.lowercased()) cannot be read")
        }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }
}

/// Reads a stored entity's bytes front to back; every read checks what is left.
private struct ByteReader {
    struct Short: Error {}
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    var remaining: Int { bytes.count - offset }

    mutating func byte() throws -> UInt8 {
        guard remaining >= 1 else { throw Short() }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        guard remaining >= MemoryLayout<T>.size else { throw Short() }
        defer { offset += MemoryLayout<T>.size }
        return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    mutating func field(of entity: ChronicleModel.Entity) throws -> ChronicleModel.Field {
        let index = Int(try integer(UInt16.self))
        guard index < entity.fields.count else { throw Short() }
        return entity.fields[index]
    }

    mutating func text() throws -> String {
        let count = Int(try integer(UInt32.self))
        guard count <= remaining else { throw Short() }
        defer { offset += count }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]), as: UTF8.self)
    }

    mutating func uuid() throws -> UUID {
        guard remaining >= 16 else { throw Short() }
        var value = UUID().uuid
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 16])) }
        offset += 16
        return UUID(uuid: value)
    }
}

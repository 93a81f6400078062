import ChronicleSchema
import Foundation

/// One entity as the stored read model of a declared model keeps it (``ModelStates``): its
/// folded state, where the merge last applied to it, and where its unique values were written.
///
/// Stored compactly, fields by their place in the entity's declaration (the read model is
/// rebuilt whenever the model changes):
///
/// ```
/// flags (1: bit 0 deleted, bit 1 hidden by a parent) · last applied position (8) · unique writes (1: count, then
/// field (2) and position (8) each) · values (2: count, then field (2) and the value as
/// ``StoredValue`` writes it)
/// ```
///
/// Numbers are little-endian.
struct StoredEntity: Equatable {
    var state: ChronicleModel.EntityState
    /// Live, but not shown: a parent whose deletion hides it (up the chain) is not shown
    /// (``ChronicleModel/isShown(_:parent:)``). Kept up by the fold as parents are deleted and
    /// restored, so that a read tells what it shows from the entity alone.
    var isHidden = false
    /// The position of the event ranked last among those folded in (the merge's order).
    var lastApplied: UInt64
    /// Per unique field, the position of the write that gave its value.
    var uniqueWrites: [String: UInt64]

    /// Whether a read shows it: live and not hidden.
    var isShown: Bool { !state.isDeleted && !isHidden }

    /// The flags byte's bit for ``isHidden``.
    static let hiddenFlag: UInt8 = 2

    /// The stored bytes, fields placed by the entity's declaration, whose fields' names
    /// `layout` gives in order (values laid so are copied as their bytes).
    func encoded(layout: [String]) -> [UInt8] {
        Self.encoded(state, isHidden: isHidden, lastApplied: lastApplied, layout: layout) { uniqueWrites[$0] }
    }

    /// The stored bytes of an entity from its parts, without making a ``StoredEntity``: its
    /// state, its flags, where the merge last applied to it, and, per field by name, the
    /// position of the write that gave its unique value (nil: none kept).
    static func encoded(_ state: ChronicleModel.EntityState, isHidden: Bool, lastApplied: UInt64, layout: [String],
                        uniqueWrite: (String) -> UInt64?) -> [UInt8] {
        var bytes: [UInt8] = [(state.isDeleted ? 1 : 0) | (isHidden ? 2 : 0)]
        bytes.reserveCapacity(64)
        append(lastApplied, to: &bytes)
        // Each count is written before what it counts, and set once they are written.
        let writesCounted = bytes.count
        bytes.append(0)
        for index in layout.indices {
            guard let position = uniqueWrite(layout[index]) else { continue }
            append(UInt16(index), to: &bytes)
            append(position, to: &bytes)
            bytes[writesCounted] += 1
        }
        let counted = bytes.count
        append(UInt16(0), to: &bytes)
        let count = state.values.appendStored(to: &bytes, layout: layout)
        bytes[counted] = UInt8(truncatingIfNeeded: count)
        bytes[counted + 1] = UInt8(truncatingIfNeeded: count >> 8)
        return bytes
    }

    /// Reads what ``encoded(layout:)`` wrote for entity `id` of the entity named `entity`, its
    /// values laid as `layout` (the entity's fields' names, in order: shared by every state decoded).
    /// - throws: ``ProjectionError/corruptModel(_:)`` when the bytes are not such a record.
    static func decode(_ bytes: UnsafeRawBufferPointer, id: UUID, entity: String, layout: [String]) throws -> StoredEntity {
        var reader = StoredBytesReader(bytes: bytes)
        do {
            let flags = try reader.byte()
            let lastApplied = try reader.integer(UInt64.self)
            var uniqueWrites: [String: UInt64] = [:]
            for _ in 0..<(try reader.byte()) {
                let place = Int(try reader.integer(UInt16.self))
                guard place < layout.count else { throw StoredBytesReader.Short() }
                let name = layout[place]
                uniqueWrites[name] = try reader.integer(UInt64.self)
            }
            let count = Int(try reader.integer(UInt16.self))
            let values = try ChronicleModel.FieldValues(layout: layout, stored: count, from: &reader)
            guard reader.remaining == 0 else { throw StoredBytesReader.Short() }
            let state = ChronicleModel.EntityState(entity: entity, id: id, values: values, isDeleted: flags & 1 == 1)
            return StoredEntity(state: state, isHidden: flags & 2 == 2, lastApplied: lastApplied, uniqueWrites: uniqueWrites)
        } catch {
            throw ProjectionError.corruptModel("the stored \(entity) \(id.uuidString.lowercased()) cannot be read")
        }
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        StoredValue.append(value, to: &bytes)
    }
}

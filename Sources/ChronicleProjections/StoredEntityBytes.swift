import ChronicleSchema
import Foundation

/// A stored entity (what ``StoredEntity/encoded(by:)`` wrote) read in place: whether it is
/// shown and any one value, without decoding the rest. A read judges each set's members so,
/// and hands the entities it returns to a ``ChronicleRecord`` as ``ChronicleModel/Fields``
/// read in place too.
///
/// Valid only as long as the bytes: within the read transaction that found them.
struct StoredEntityBytes {
    let entity: String
    let bytes: UnsafeRawBufferPointer
    /// Where the values begin: past the flags (1), the last applied position (8) and the
    /// unique writes (1: count, then 10 each).
    let valuesOffset: Int

    /// - throws: ``ProjectionError/corruptModel(_:)`` when the bytes are too short for the header.
    init(entity: String, bytes: UnsafeRawBufferPointer) throws {
        self.entity = entity
        self.bytes = bytes
        guard bytes.count >= 12 else { throw Self.corrupt(entity) }
        valuesOffset = 10 + Int(bytes[9]) * 10
        guard valuesOffset + 2 <= bytes.count else { throw Self.corrupt(entity) }
    }

    var isDeleted: Bool { bytes[0] & 1 == 1 }

    /// Live and not hidden by a parent (``StoredEntity/isShown``).
    var isShown: Bool { bytes[0] & (1 | StoredEntity.hiddenFlag) == 0 }

    /// The values, as ``ChronicleModel/Fields`` reads them.
    var values: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[valuesOffset...]) }

    /// The value of field `index`; nil when the entity holds none.
    /// - throws: ``ProjectionError/corruptModel(_:)`` when the bytes are not such a record.
    func value(at index: Int) throws -> ChronicleModel.FieldValue? {
        guard var reader = try reader(at: index) else { return nil }
        do { return try reader.value() } catch { throw Self.corrupt(entity) }
    }

    /// Calls `body` with each member of set field `index`, in order, while it returns true.
    /// - throws: ``ProjectionError/corruptModel(_:)`` when the bytes are not such a record.
    func forEachMember(of index: Int, _ body: (UUID) throws -> Bool) throws {
        guard var reader = try reader(at: index) else { return }
        let count: Int
        do {
            guard try reader.byte() == StoredValue.Kind.ids.rawValue else { return }
            count = Int(try reader.integer(UInt32.self))
            guard count <= reader.remaining / 16 else { throw StoredBytesReader.Short() }
        } catch {
            throw Self.corrupt(entity)
        }
        for _ in 0..<count {
            // In bounds: checked above.
            guard try body(try reader.uuid()) else { return }
        }
    }

    /// A reader at the value of field `index`, past its field number; nil when there is none.
    private func reader(at index: Int) throws -> StoredBytesReader? {
        var reader = StoredBytesReader(bytes: bytes, offset: valuesOffset)
        do { return try reader.seekValue(ofField: index) ? reader : nil } catch { throw Self.corrupt(entity) }
    }

    private static func corrupt(_ entity: String) -> ProjectionError {
        .corruptModel("a stored \(entity) cannot be read")
    }
}

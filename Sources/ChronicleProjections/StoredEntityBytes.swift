import ChronicleSchema
import Foundation

/// A stored entity (what ``StoredEntity/encoded(layout:)`` wrote) read in place: whether it is
/// shown and any one value, without decoding the rest. A read judges each set's members so,
/// and hands the entities it returns to a ``ChronicleRecord`` as ``ChronicleModel/Fields``,
/// which reads their values in place too.
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

    /// A reader at the value of field `index`, past its field number; nil when there is none.
    private func reader(at index: Int) throws -> StoredBytesReader? {
        var reader = StoredBytesReader(bytes: bytes, offset: valuesOffset)
        do { return try reader.seekValue(ofField: index) ? reader : nil } catch { throw Self.corrupt(entity) }
    }

    private static func corrupt(_ entity: String) -> ProjectionError {
        .corruptModel("a stored \(entity) cannot be read")
    }
}

import ChronicleSchema
import Foundation
import UUIDText

/// A stored entity (what ``StoredEntity/encoded(by:)`` wrote) read in place, for the rule of
/// what is shown: whether it is deleted, and the parents its references name, without
/// decoding its other values. A read judges each entity's parents and each set's members so,
/// and decodes only the entities it returns.
///
/// Valid only as long as the bytes: within the read transaction that found them.
struct StoredEntityBytes: ChronicleModel.ShowingSubject {
    let entity: String
    let bytes: UnsafeRawBufferPointer

    var isDeleted: Bool { bytes.first.map { $0 & 1 == 1 } ?? true }

    /// The id that `reference`'s field holds; nil when it holds none.
    /// - throws: ``ProjectionError/corruptModel(_:)`` when the bytes are not such a record.
    func parent(_ reference: ChronicleModel.ShowingRule.HidingReference) throws -> UUID? {
        var reader = StoredBytesReader(bytes: bytes)
        do {
            reader.offset = 9   // flags (1), last applied (8)
            let writes = Int(try reader.byte())
            try reader.skip(writes * 10)   // field (2), position (8) each
            for _ in 0..<(try reader.integer(UInt16.self)) {
                let index = Int(try reader.integer(UInt16.self))
                guard index == reference.fieldIndex else {
                    try reader.skipValue()
                    continue
                }
                guard try reader.byte() == StoredValue.Kind.text.rawValue else { return nil }
                let count = Int(try reader.integer(UInt32.self))
                try reader.skip(count)
                return UUID(hyphenated: UnsafeRawBufferPointer(rebasing: bytes[(reader.offset - count)..<reader.offset]))
            }
            return nil
        } catch {
            throw ProjectionError.corruptModel("a stored \(entity) cannot be read")
        }
    }
}

extension StoredBytesReader {
    mutating func skip(_ count: Int) throws {
        guard count >= 0, count <= remaining else { throw Short() }
        offset += count
    }

    /// Steps over a value ``StoredValue/append(_:to:)`` wrote.
    mutating func skipValue() throws {
        switch StoredValue.Kind(rawValue: try byte()) {
        case .text: try skip(Int(try integer(UInt32.self)))
        case .integer, .number: try skip(8)
        case .boolean: try skip(1)
        case .null: break
        case .ids:
            let count = Int(try integer(UInt32.self))
            guard count <= remaining / 16 else { throw Short() }
            try skip(count * 16)
        case nil: throw Short()
        }
    }
}

import Foundation
import UUIDText

/// An app's own Swift type for one entity of its model, read straight from the store.
///
/// A read that returns ``ChronicleModel/EntityState`` builds a dictionary of every value of
/// every entity. A record type reads only the fields it wants, each where the store keeps
/// it, into plain stored properties: the fast way to show a list.
///
/// ```swift
/// struct NoteRow: ChronicleRecord {
///     static let entity = "Note"
///     let id: UUID
///     let title: String
///     let labels: [UUID]
///
///     init(_ fields: borrowing ChronicleModel.Fields) {
///         id = fields.id
///         title = fields.text("title") ?? ""
///         labels = fields.members(of: "labels")
///     }
/// }
///
/// let week = try await store.entities(NoteRow.self, where: "day", from: "2026-12-01", through: "2026-12-07")
/// ```
///
/// The fields are those of the shown entity: each set holds only its shown members, and a
/// unique value that collided after a merge reads with its suffix (`Work (2)`), as
/// ``ChronicleModel/EntityState`` would show them.
public protocol ChronicleRecord {
    /// The name of the entity this type reads, as the model declares it (`"Note"`).
    static var entity: String { get }

    /// Reads one shown entity. `fields` is valid only during the call.
    init(_ fields: borrowing ChronicleModel.Fields) throws
}

extension ChronicleModel {
    /// One shown entity's values, handed to a ``ChronicleRecord``'s initializer: read where
    /// the store keeps them, one field at a time, without a dictionary.
    ///
    /// Accessors take a field's name, as the model declares it, and return nil when the
    /// field holds no value of that kind (an absent optional, or a name the entity lacks).
    public struct Fields: ~Copyable {
        /// The entity's id.
        public let id: UUID
        /// The entity's declaration: its name and fields, for a record that reads any entity.
        public var declaration: Entity { entity }
        private let entity: Entity
        private let source: Source

        private enum Source {
            /// The values as the stored read model keeps them (a count (2), then each one's
            /// field (2) and ``StoredValue``), checked; with each set's shown members.
            case stored(UnsafeRawBufferPointer, shownSets: [(field: Int, members: [UUID])])
            case state(EntityState)
        }

        /// Where the value of each of the first 16 fields begins in the stored values (-1:
        /// none), found in the one pass that checks them; a later field is looked for. Kept
        /// inline: a list of rows reads thousands of entities, and an array would cost each
        /// one an allocation.
        private let offsets: SIMD16<Int32>

        /// The values of a stored entity, read in place; `shownSets` replaces the sets' stored
        /// members. Valid while `values` is.
        /// - throws: when the bytes are not such values.
        package init(stored values: UnsafeRawBufferPointer, id: UUID, entity: Entity,
                     shownSets: [(field: Int, members: [UUID])]) throws {
            var reader = StoredBytesReader(bytes: values)
            var offsets = SIMD16<Int32>(repeating: -1)
            for _ in 0..<(try reader.integer(UInt16.self)) {
                let field = Int(try reader.integer(UInt16.self))
                guard field < entity.fields.count else { throw StoredBytesReader.Short() }
                if field < offsets.scalarCount { offsets[field] = Int32(reader.offset) }
                try reader.skipValue()
            }
            guard reader.remaining == 0 else { throw StoredBytesReader.Short() }
            self.id = id
            self.entity = entity
            self.offsets = offsets
            source = .stored(values, shownSets: shownSets)
        }

        /// The values of `state`, as shown.
        package init(_ state: EntityState, entity: Entity) {
            id = state.id
            self.entity = entity
            offsets = SIMD16(repeating: -1)
            source = .state(state)
        }

        /// The value `field` holds, as ``EntityState/values`` would hold it.
        public func value(_ field: String) -> FieldValue? {
            switch source {
            case .state(let state):
                return state.values[field]
            case .stored(let values, let sets):
                guard let index = index(of: field) else { return nil }
                if let set = sets.first(where: { $0.field == index }) { return .ids(set.members) }
                guard var reader = reader(at: index, in: values) else { return nil }
                return try? reader.value()
            }
        }

        /// The text (or day, timestamp, decimal) `field` holds.
        public func text(_ field: String) -> String? {
            guard case .stored(let values, _) = source else { return value(field)?.text }
            guard let index = index(of: field), var reader = reader(at: index, in: values),
                  (try? reader.byte()) == StoredValue.Kind.text.rawValue else { return nil }
            return try? reader.text()
        }

        /// The integer `field` holds.
        public func integer(_ field: String) -> Int? { value(field)?.integer }

        /// The number `field` holds (an integer read as one too).
        public func number(_ field: String) -> Double? { value(field)?.number }

        /// The boolean `field` holds.
        public func boolean(_ field: String) -> Bool? { value(field)?.boolean }

        /// The entity reference `field` names.
        public func reference(_ field: String) -> UUID? {
            guard case .stored(let values, _) = source else { return value(field)?.text.flatMap { UUID(hyphenated: $0) } }
            guard let index = index(of: field), var reader = reader(at: index, in: values),
                  (try? reader.byte()) == StoredValue.Kind.text.rawValue,
                  let count = try? reader.integer(UInt32.self), Int(count) <= reader.remaining else { return nil }
            return UUID(hyphenated: UnsafeRawBufferPointer(rebasing: values[reader.offset..<reader.offset + Int(count)]))
        }

        /// The shown members of set `field` (none when it holds none).
        public func members(of field: String) -> [UUID] { value(field)?.members ?? [] }

        private func index(of field: String) -> Int? {
            entity.fields.firstIndex { $0.name == field }
        }

        /// A reader at the value of field `index`, past its field number; nil when the entity
        /// holds no value for it.
        private func reader(at index: Int, in values: UnsafeRawBufferPointer) -> StoredBytesReader? {
            if index < offsets.scalarCount {
                return offsets[index] < 0 ? nil : StoredBytesReader(bytes: values, offset: Int(offsets[index]))
            }
            // Checked when the fields were made: the seek stays in bounds.
            var reader = StoredBytesReader(bytes: values)
            return (try? reader.seekValue(ofField: index)) == true ? reader : nil
        }
    }
}

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
        public var declaration: Entity { lookup.entity }
        private let lookup: FieldLookup
        private let source: Source
        /// The shown members of each set of which a member stored is not shown (a stored
        /// read's; most sets have none, and are read as stored).
        private var shownSets: [(field: Int, members: [UUID])] = []

        private enum Source {
            /// The values as the stored read model keeps them (a count (2), then each one's
            /// field (a varint) and ``StoredValue``), checked.
            case stored(UnsafeRawBufferPointer)
            case state(EntityState)
        }

        /// Where the value of each of the first 16 fields begins in the stored values (-1:
        /// none), found in the one pass that checks them; a later field is looked for. Kept
        /// inline: a list of rows reads thousands of entities, and an array would cost each
        /// one an allocation.
        private var offsets = SIMD16<Int32>(repeating: -1)

        /// The values of a stored entity of `lookup`'s, read in place. Valid while `values` is.
        /// - throws: when the bytes are not such values.
        package init(stored values: UnsafeRawBufferPointer, id: UUID, lookup: FieldLookup) throws {
            self.id = id
            self.lookup = lookup
            source = .stored(values)
            // Filled in place: a copy made after would wait on the stores just made.
            var reader = StoredBytesReader(bytes: values)
            let declared = lookup.entity.fields.count
            for _ in 0..<(try reader.integer(UInt16.self)) {
                let field = try reader.varint()
                guard field < declared else { throw StoredBytesReader.Short() }
                if field < offsets.scalarCount { offsets[field] = Int32(reader.offset) }
                try reader.skipValue()
            }
            guard reader.remaining == 0 else { throw StoredBytesReader.Short() }
        }

        /// The values of `state`, an entity of `lookup`'s, as shown.
        package init(_ state: EntityState, lookup: FieldLookup) {
            id = state.id
            self.lookup = lookup
            source = .state(state)
        }

        /// Calls `body` with each member stored in set field `index` (shown or not), in
        /// order, while it returns true. A stored read's: none for values of a state.
        package func forEachStoredMember(ofField index: Int, _ body: (UUID) throws -> Bool) rethrows {
            guard case .stored(let values) = source, var reader = reader(at: index, in: values),
                  (try? reader.byte()) == StoredValue.Kind.ids.rawValue,
                  let count = try? reader.varint() else { return }
            // Checked when the fields were made: the members are in bounds.
            for _ in 0..<count {
                guard let member = try? reader.uuid(), try body(member) else { return }
            }
        }

        /// Reads set field `index` as holding `members` (its shown ones) instead of those stored.
        package mutating func show(_ members: [UUID], inSetField index: Int) {
            shownSets.append((index, members))
        }

        /// The value of field `index`, as ``value(_:)`` reads it.
        package func value(at index: Int) -> FieldValue? {
            switch source {
            case .state(let state):
                let fields = lookup.entity.fields
                return index < fields.count ? state.values.value(at: index, named: fields[index].name) : nil
            case .stored(let values):
                if let set = shownSets.first(where: { $0.field == index }) { return .ids(set.members) }
                guard var reader = reader(at: index, in: values) else { return nil }
                return try? reader.value()
            }
        }

        /// The value `field` holds, as ``EntityState/values`` would hold it.
        public func value(_ field: String) -> FieldValue? {
            if case .state(let state) = source { return state.values[field] }
            return index(of: field).flatMap { value(at: $0) }
        }

        /// The text (or day, timestamp, decimal) `field` holds.
        public func text(_ field: String) -> String? {
            guard case .stored(let values) = source else { return value(field)?.text }
            guard let index = index(of: field), var reader = reader(at: index, in: values) else { return nil }
            switch try? reader.byte() {
            case StoredValue.Kind.text.rawValue: return try? reader.text()
            case StoredValue.Kind.id.rawValue: return (try? reader.uuid())?.lowercasedString
            case StoredValue.Kind.day.rawValue: return try? reader.day()
            default: return nil
            }
        }

        /// The calendar day `field` holds (a `day` field's value), as its year, month and day:
        /// read where it is stored, without its text. Nil for a value that names no real day.
        ///
        /// ```swift
        /// let (year, month, day) = fields.day("deadline") ?? (2026, 1, 1)
        /// ```
        public func day(_ field: String) -> (year: Int, month: Int, day: Int)? {
            guard case .stored(let values) = source else { return value(field)?.text.flatMap(ChronicleModel.calendarDay) }
            guard let index = index(of: field), var reader = reader(at: index, in: values) else { return nil }
            switch try? reader.byte() {
            case StoredValue.Kind.day.rawValue:
                guard let year = try? reader.integer(UInt16.self), let month = try? reader.byte(), let day = try? reader.byte(),
                      ChronicleModel.isCalendarDay(year: Int(year), month: Int(month), day: Int(day)) else { return nil }
                return (Int(year), Int(month), Int(day))
            case StoredValue.Kind.text.rawValue:
                return (try? reader.text()).flatMap(ChronicleModel.calendarDay)
            default:
                return nil
            }
        }

        /// The integer `field` holds.
        public func integer(_ field: String) -> Int? { value(field)?.integer }

        /// The number `field` holds (an integer read as one too).
        public func number(_ field: String) -> Double? { value(field)?.number }

        /// The boolean `field` holds.
        public func boolean(_ field: String) -> Bool? {
            guard case .stored(let values) = source else { return value(field)?.boolean }
            guard let index = index(of: field), var reader = reader(at: index, in: values),
                  (try? reader.byte()) == StoredValue.Kind.boolean.rawValue else { return nil }
            return (try? reader.byte()).map { $0 == 1 }
        }

        /// The entity reference `field` names.
        public func reference(_ field: String) -> UUID? {
            guard case .stored(let values) = source else { return value(field)?.text.flatMap { UUID(hyphenated: $0) } }
            guard let index = index(of: field), var reader = reader(at: index, in: values) else { return nil }
            switch try? reader.byte() {
            case StoredValue.Kind.id.rawValue:
                return try? reader.uuid()
            case StoredValue.Kind.text.rawValue:
                guard let count = try? reader.varint(), count <= reader.remaining else { return nil }
                return UUID(hyphenated: UnsafeRawBufferPointer(rebasing: values[reader.offset..<reader.offset + count]))
            default:
                return nil
            }
        }

        /// The shown members of set `field` (none when it holds none).
        public func members(of field: String) -> [UUID] {
            guard case .stored = source else { return value(field)?.members ?? [] }
            guard let index = index(of: field) else { return [] }
            if let set = shownSets.first(where: { $0.field == index }) { return set.members }
            var members: [UUID] = []
            forEachStoredMember(ofField: index) { member in
                members.append(member)
                return true
            }
            return members
        }

        private func index(of field: String) -> Int? { lookup.index(of: field) }

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

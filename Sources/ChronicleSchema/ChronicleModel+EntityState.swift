import Foundation
import UUIDText

extension ChronicleModel {
    /// One entity as a fold of its events leaves it: its fields' values and whether it is
    /// deleted. A deleted entity keeps its values, so a restoration brings it back as it was.
    public struct EntityState: Sendable, Hashable {
        /// The entity's name, e.g. `Note`.
        public var entity: String
        public var id: UUID
        /// The fields that hold a value (an absent optional has none); a set holds `.ids`.
        public var values: FieldValues
        public var isDeleted: Bool

        /// A state from its parts.
        public init(entity: String, id: UUID, values: FieldValues, isDeleted: Bool = false) {
            self.entity = entity
            self.id = id
            self.values = values
            self.isDeleted = isDeleted
        }

        /// A state from its parts, its values given as a dictionary.
        public init(entity: String, id: UUID, values: [String: FieldValue], isDeleted: Bool = false) {
            self.init(entity: entity, id: id, values: FieldValues(values), isDeleted: isDeleted)
        }

        /// The members of set `field` (none when it holds none).
        public func members(of field: String) -> [UUID] { values[field]?.members ?? [] }

        /// The entity `field` refers to, when it holds one.
        public func reference(_ field: String) -> UUID? { values[field]?.text.flatMap { UUID(hyphenated: $0) } }

        /// ``reference(_:)`` of the field at `place` among the entity's, as its states lay values.
        package func reference(at place: Int, named field: String) -> UUID? {
            values.value(at: place, named: field)?.text.flatMap { UUID(hyphenated: $0) }
        }
    }
}

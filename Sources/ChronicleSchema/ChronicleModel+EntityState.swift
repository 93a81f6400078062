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
        public func reference(_ field: String) -> UUID? { values.reference(named: field) }

        /// ``reference(_:)`` of the field at `place` among the entity's, as its states lay values.
        package func reference(at place: Int, named field: String) -> UUID? {
            values.reference(at: place, named: field)
        }
    }
}

extension ChronicleModel {
    /// Whether entity `id` of `entity` is shown, its states read by `states`: live, and each
    /// parent whose deletion reaches it (when that parent exists) shown. Chains longer than
    /// the model's entities are cycles of references and stop there.
    public func isShown(_ entity: String, id: UUID,
                        states: (_ entity: String, _ id: UUID) throws -> EntityState?) rethrows -> Bool {
        try isShown(entity, id, depth: 0, states: states)
    }

    private func isShown(_ entity: String, _ id: UUID, depth: Int,
                         states: (String, UUID) throws -> EntityState?) rethrows -> Bool {
        guard let state = try states(entity, id), !state.isDeleted else { return false }
        guard let declared = self.entity(named: entity), depth <= entities.count else { return true }
        for field in declared.fields where field.onParentDeletion != nil {
            guard case .reference(let target) = field.type, let parent = state.reference(field.name),
                  try states(target, parent) != nil else { continue }
            if try !isShown(target, parent, depth: depth + 1, states: states) { return false }
        }
        return true
    }
}

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
        public var values: [String: FieldValue]
        public var isDeleted: Bool

        /// A state from its parts.
        public init(entity: String, id: UUID, values: [String: FieldValue], isDeleted: Bool = false) {
            self.entity = entity
            self.id = id
            self.values = values
            self.isDeleted = isDeleted
        }

        /// The members of set `field` (none when it holds none).
        public func members(of field: String) -> [UUID] { values[field]?.members ?? [] }

        /// The entity `field` refers to, when it holds one.
        public func reference(_ field: String) -> UUID? { values[field]?.text.flatMap { UUID(hyphenated: $0) } }
    }
}

extension ChronicleModel.Entity {
    /// The state `event` (a creation) makes: the values it gives, the defaults for the others,
    /// every set empty, and empty text dropped where ``ChronicleModel/FieldRule/emptyIsAbsent`` says so.
    func created(_ id: UUID, _ given: [String: ChronicleModel.FieldValue]) -> ChronicleModel.EntityState {
        var values: [String: ChronicleModel.FieldValue] = [:]
        for field in fields {
            if case .references = field.type {
                values[field.name] = given[field.name] ?? .ids([])
            } else if let value = given[field.name] ?? field.defaultValue {
                values[field.name] = value
            }
        }
        var state = ChronicleModel.EntityState(entity: name, id: id, values: values)
        dropEmptyText(&state, among: given.keys)
        return state
    }

    /// Writes `given` over `state`'s values.
    func update(_ state: inout ChronicleModel.EntityState, with given: [String: ChronicleModel.FieldValue]) {
        for (name, value) in given { state.values[name] = value == .null ? nil : value }
        dropEmptyText(&state, among: given.keys)
    }

    private func dropEmptyText(_ state: inout ChronicleModel.EntityState, among names: some Sequence<String>) {
        for name in names {
            guard case .text("")? = state.values[name], let field = field(named: name),
                  field.rules.contains(.emptyIsAbsent) else { continue }
            state.values[name] = nil
        }
    }
}

import Foundation

extension ChronicleModel {
    /// How one entity's events change its state, planned once from its declaration
    /// (``Snapshot`` keeps one per entity): folding an event then reads no field's declaration.
    struct EntityFold: Sendable {
        /// Each field: its name, whether it is a set, and what a creation without it gives.
        private let fields: [(name: String, isSet: Bool, defaultValue: FieldValue?)]
        /// The fields whose empty text is no value (``FieldRule/emptyIsAbsent``).
        private let emptyIsAbsent: [String]
        /// The unique fields.
        let unique: [String]

        init(_ entity: Entity) {
            fields = entity.fields.map { field in
                let isSet = if case .references = field.type { true } else { false }
                return (field.name, isSet, field.defaultValue)
            }
            emptyIsAbsent = entity.fields.filter { $0.rules.contains(.emptyIsAbsent) }.map(\.name)
            unique = entity.fields.filter { $0.unique != nil }.map(\.name)
        }

        /// The state a creation of entity `id` of `entity` makes: the values it gives, the
        /// defaults for the others, every set empty, and empty text dropped where the field's rules say so.
        func created(_ entity: String, _ id: UUID, _ given: [String: FieldValue]) -> EntityState {
            var values: [String: FieldValue] = [:]
            values.reserveCapacity(fields.count)
            for field in fields {
                if field.isSet {
                    values[field.name] = given[field.name] ?? .ids([])
                } else if let value = given[field.name] ?? field.defaultValue {
                    values[field.name] = value
                }
            }
            var state = EntityState(entity: entity, id: id, values: values)
            dropEmptyText(&state, given: given)
            return state
        }

        /// Writes `given` over `state`'s values (`null` clears one).
        func update(_ state: inout EntityState, with given: [String: FieldValue]) {
            for (name, value) in given { state.values[name] = value == .null ? nil : value }
            dropEmptyText(&state, given: given)
        }

        /// Drops the empty text `given` wrote where the field's rules say it is no value.
        private func dropEmptyText(_ state: inout EntityState, given: [String: FieldValue]) {
            for name in emptyIsAbsent where given[name] != nil {
                if case .text("")? = state.values[name] { state.values[name] = nil }
            }
        }
    }
}

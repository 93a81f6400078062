import Foundation

extension ChronicleModel {
    /// How one entity's events change its state, planned once from its declaration
    /// (``Snapshot`` keeps one per entity): folding an event then reads no field's declaration.
    struct EntityFold: Sendable {
        /// The fields' names, in order: the layout of the states it makes.
        let layout: [String]
        /// Each field (by place): whether it is a set, and what a creation without it gives.
        private let fields: [(isSet: Bool, defaultValue: FieldValue?)]
        /// The places of the fields whose empty text is no value (``FieldRule/emptyIsAbsent``).
        private let emptyIsAbsent: [Int]
        /// The unique fields' names.
        let unique: [String]

        init(_ entity: Entity) {
            layout = entity.fields.map(\.name)
            fields = entity.fields.map { field in
                let isSet = if case .references = field.type { true } else { false }
                return (isSet, field.defaultValue)
            }
            emptyIsAbsent = entity.fields.indices.filter { entity.fields[$0].rules.contains(.emptyIsAbsent) }
            unique = entity.fields.filter { $0.unique != nil }.map(\.name)
        }

        /// The state a creation of entity `id` of `entity` makes: the values it gives, the
        /// defaults for the others, every set empty, and empty text dropped where the field's rules say so.
        func created(_ entity: String, _ id: UUID, _ given: FieldValues) -> EntityState {
            // Values read by the model come laid as the fields are: taken whole, gaps filled.
            var values = given.isLaid(as: layout) ? given : FieldValues(layout: layout)
            for place in fields.indices {
                // `null` given to a creation is as if the field were not given.
                let value = given.value(at: place, named: layout[place]).flatMap { $0 == .null ? nil : $0 }
                values.set(value ?? (fields[place].isSet ? .ids([]) : fields[place].defaultValue), at: place, named: layout[place])
            }
            var state = EntityState(entity: entity, id: id, values: values)
            dropEmptyText(&state, given: given)
            return state
        }

        /// Writes `given` over `state`'s values (`null` clears one).
        func update(_ state: inout EntityState, with given: FieldValues) {
            // Slots set by place fall back to the name where the state is laid otherwise.
            if given.isLaid(as: layout) {
                for place in layout.indices {
                    guard let value = given.value(at: place, named: layout[place]) else { continue }
                    state.values.set(value == .null ? nil : value, at: place, named: layout[place])
                }
            } else {
                for (name, value) in given { state.values[name] = value == .null ? nil : value }
            }
            dropEmptyText(&state, given: given)
        }

        /// Drops the empty text `given` wrote where the field's rules say it is no value.
        private func dropEmptyText(_ state: inout EntityState, given: FieldValues) {
            for place in emptyIsAbsent where given.value(at: place, named: layout[place]) != nil {
                if case .text("")? = state.values.value(at: place, named: layout[place]) {
                    state.values.set(nil, at: place, named: layout[place])
                }
            }
        }
    }
}

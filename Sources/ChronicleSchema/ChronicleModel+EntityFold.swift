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
            var values: FieldValues
            if given.isLaid(as: layout) {
                // Values read by the model come laid as the fields are: taken whole, gaps filled.
                values = given
                for place in fields.indices where values.kind(at: place) == nil || values.kind(at: place) == .null {
                    values.setSlot(fields[place].isSet ? .ids([]) : fields[place].defaultValue, at: place)
                }
            } else {
                values = FieldValues(layout: layout)
                for place in fields.indices {
                    // `null` given to a creation is as if the field were not given.
                    let value = given[layout[place]].flatMap { $0 == .null ? nil : $0 }
                    values.setSlot(value ?? (fields[place].isSet ? .ids([]) : fields[place].defaultValue), at: place)
                }
            }
            var state = EntityState(entity: entity, id: id, values: values)
            dropEmptyText(&state, given: given)
            return state
        }

        /// Writes `given` over `state`'s values (`null` clears one).
        func update(_ state: inout EntityState, with given: FieldValues) {
            // Slots are copied as their bytes where both are laid as the fields are.
            if given.isLaid(as: layout), state.values.isLaid(as: layout) {
                for place in layout.indices {
                    switch given.kind(at: place) {
                    case nil: continue
                    case .null: state.values.setSlot(nil, at: place)
                    default: state.values.copySlot(at: place, from: given)
                    }
                }
            } else {
                for (name, value) in given { state.values[name] = value == .null ? nil : value }
            }
            dropEmptyText(&state, given: given)
        }

        /// Drops the empty text `given` wrote where the field's rules say it is no value.
        private func dropEmptyText(_ state: inout EntityState, given: FieldValues) {
            for place in emptyIsAbsent where given.holdsValue(at: place, named: layout[place]) {
                if state.values.holdsEmptyText(at: place, named: layout[place]) {
                    state.values.set(nil, at: place, named: layout[place])
                }
            }
        }
    }
}

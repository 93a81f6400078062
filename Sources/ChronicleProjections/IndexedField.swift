import ChronicleSchema

/// One field of an entity that the stored read model's indexes hold (``ModelStates``),
/// planned once per model: a batch reindexes each entity it changes by these alone, without
/// going through every declared field.
struct IndexedField {
    /// The field's name, its values' key in a state.
    let name: String
    /// Its place in the entity's declaration (its number in keys).
    let place: Int
    /// How its values compare when it is unique (the `unique` index).
    let uniqueness: ChronicleModel.Uniqueness?
    /// Whether its values are in the `values` index: declared indexed, or grouped by an aggregate.
    let isValueIndexed: Bool
    /// Whether it is a reference, in the `children` index under the entity it names.
    let isReference: Bool
    /// Whether it is a set of references, in the `children` index under each member.
    let isSet: Bool
    /// Whether the `children` index lists the entity under the entities the field names.
    var namesEntities: Bool { isReference || isSet }

    /// The indexed fields of `entity`, in declaration order; `valueIndexed` names those in the `values` index.
    static func plan(of entity: ChronicleModel.Entity, valueIndexed: Set<String>) -> [IndexedField] {
        entity.fields.enumerated().compactMap { place, field in
            let isReference = if case .reference = field.type { true } else { false }
            let isSet = if case .references = field.type { true } else { false }
            let planned = IndexedField(name: field.name, place: place, uniqueness: field.unique,
                                       isValueIndexed: valueIndexed.contains(field.name), isReference: isReference, isSet: isSet)
            return planned.uniqueness != nil || planned.isValueIndexed || planned.namesEntities ? planned : nil
        }
    }
}

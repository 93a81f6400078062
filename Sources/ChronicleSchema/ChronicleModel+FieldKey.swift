extension ChronicleModel {
    /// One field of one entity, found once by name: reads that field from values by its place
    /// among the entity's fields, without comparing its name to each other field's.
    ///
    /// ```swift
    /// let title = model.fieldKey("title", of: "Todo")!
    /// if case .text(let text)? = values[title] { print(text) }
    /// ```
    public struct FieldKey: Sendable, Hashable {
        /// The entity's name.
        public let entity: String
        /// The field's name.
        public let name: String
        /// The field's place among the entity's fields.
        let place: Int
    }

    /// The key of field `field` of entity `entity`, or nil when the model declares no such field.
    public func fieldKey(_ field: String, of entity: String) -> FieldKey? {
        guard let fields = self.entity(named: entity)?.fields,
              let place = fields.firstIndex(where: { $0.name == field }) else { return nil }
        return FieldKey(entity: entity, name: field, place: place)
    }
}

extension ChronicleModel.FieldValues {
    /// The value of the field `key` names; nil when it holds none.
    public subscript(key: ChronicleModel.FieldKey) -> ChronicleModel.FieldValue? {
        value(at: key.place, named: key.name)
    }
}

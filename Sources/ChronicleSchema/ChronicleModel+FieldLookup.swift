extension ChronicleModel {
    /// An entity's field names, for the records of one read: each record looks up, by name,
    /// the fields it reads, and reads them in the same order row after row. The field after
    /// the one found last is tried first, so a list's rows find each field at the first try.
    package final class FieldLookup {
        /// The entity whose fields are looked up.
        package let entity: Entity
        private let names: [String]
        private var next = 0

        package convenience init(_ entity: Entity) {
            self.init(entity, names: entity.fields.map(\.name))
        }

        /// A lookup of `entity`'s fields, whose names in order (`names`) the caller kept.
        package init(_ entity: Entity, names: [String]) {
            self.entity = entity
            self.names = names
        }

        /// The place of field `name` in the entity's declaration; nil when it has none.
        package func index(of name: String) -> Int? {
            // Names of another length are told apart without comparing their text.
            let length = name.utf8.count
            if next < names.count, names[next].utf8.count == length, names[next] == name {
                next += 1
                return next - 1
            }
            guard let found = names.firstIndex(where: { $0.utf8.count == length && $0 == name }) else { return nil }
            next = found + 1
            return found
        }
    }
}

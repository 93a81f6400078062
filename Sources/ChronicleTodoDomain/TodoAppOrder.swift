import ChronicleSchema
import Foundation
import UUIDText

/// The orders the todo app's lists come in, as its earlier read models kept them.
package enum TodoAppOrder {
    /// Sorts `entities` by the name `name` gives each, then by id: names compare as the bytes
    /// of their NFC form (canonically equivalent spellings sort together), ids as their bytes.
    package static func byName<Entity: Identifiable>(_ entities: [Entity], name: (Entity) -> String) -> [Entity]
    where Entity.ID == UUID {
        entities.map { (key: Array(ChronicleModel.Uniqueness.composed(name($0)).utf8), entity: $0) }
            .sorted { a, b in
                a.key == b.key ? a.entity.id.sortsBefore(b.entity.id) : a.key.lexicographicallyPrecedes(b.key)
            }
            .map(\.entity)
    }

    /// Sorts `todos` by deadline, then id.
    package static func sortByDeadline(_ todos: inout [Todo]) {
        todos.sort { a, b in a.deadline == b.deadline ? a.id.sortsBefore(b.id) : a.deadline < b.deadline }
    }
}

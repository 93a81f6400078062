import ChronicleWire
import ChronicleTodoDomain
import ChronicleLog
import UUIDText

/// The SPEC's JSON shapes with their keys in the SPEC's order, the same bytes on every run
/// (Foundation's encoder orders keys by hash on Linux).
enum ModelJSON {
    /// `{"id","name","age"}`
    static func user(_ user: User) -> String {
        "{\"id\":\"\(user.id.lowercasedString)\",\"name\":\(EventJSON.quote(user.name)),\"age\":\(user.age)}"
    }

    /// `{"id","title","deadline","userId","memo","isCompleted","tags"}`, null for absent; `tags`
    /// the ids of the todo's live tags, sorted.
    static func todo(_ todo: Todo) -> String {
        "{\"id\":\"\(todo.id.lowercasedString)\",\"title\":\(EventJSON.quote(todo.title)),\"deadline\":\"\(todo.deadline)\","
            + "\"userId\":\(todo.userId.map { "\"\($0.lowercasedString)\"" } ?? "null"),"
            + "\"memo\":\(todo.memo.map(EventJSON.quote) ?? "null"),\"isCompleted\":\(todo.isCompleted),"
            + "\"tags\":" + array(todo.tags) { "\"\($0.lowercasedString)\"" } + "}"
    }

    /// `{"id","name","color"}`
    static func tag(_ tag: Tag) -> String {
        "{\"id\":\"\(tag.id.lowercasedString)\",\"name\":\(EventJSON.quote(tag.name)),\"color\":\(EventJSON.quote(tag.color))}"
    }

    /// `{"date","total","completed"}`
    static func stat(_ stat: DailyStat) -> String {
        "{\"date\":\"\(stat.date)\",\"total\":\(stat.total),\"completed\":\(stat.completed)}"
    }

    static func array<T>(_ items: [T], _ encode: (T) -> String) -> String {
        "[" + items.map(encode).joined(separator: ",") + "]"
    }
}

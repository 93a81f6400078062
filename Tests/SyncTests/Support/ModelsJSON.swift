import ChronicleWire
import Chronicle
import ChronicleTodoDomain
import ChronicleLog
import Foundation

// MARK: - Rendering

/// What a device shows, as the CLI's JSON (same keys, same order, same bytes; the CLI's
/// `ModelJSON` is in the executable target, out of the tests' reach): users, all live todos,
/// tags and stats, one JSON object per item.
struct ModelRendering: Equatable {
    var users: [String]
    var todos: [String]
    var tags: [String]
    var stats: [String]

    init(_ store: ChronicleStore) async throws {
        users = try await store.users().map(Self.user)
        todos = try await store.todos().map(Self.todo)
        tags = try await store.tags().map(Self.tag)
        stats = try await store.stats().map(Self.stat)
    }

    /// Per list whose JSON differs: what only one side shows, or that the order differs.
    func differences(from other: ModelRendering, names: (String, String)) -> [String] {
        var problems: [String] = []
        for (list, mine, theirs) in [("users", users, other.users), ("todos", todos, other.todos),
                                     ("tags", tags, other.tags), ("stats", stats, other.stats)] {
            let (a, b) = ("[" + mine.joined(separator: ",") + "]", "[" + theirs.joined(separator: ",") + "]")
            guard a != b else { continue }
            let onlyMine = mine.filter { !theirs.contains($0) }, onlyTheirs = theirs.filter { !mine.contains($0) }
            if onlyMine.isEmpty, onlyTheirs.isEmpty {
                problems.append("\(list) of \(names.0) and \(names.1) differ in order: \(a) vs \(b)")
            } else {
                problems.append("\(list) of \(names.0) and \(names.1) differ: only \(names.0) shows \(onlyMine.joined(separator: ","))"
                                + "; only \(names.1) shows \(onlyTheirs.joined(separator: ","))")
            }
        }
        return problems
    }

    static func user(_ user: User) -> String {
        "{\"id\":\"\(user.id.uuidString.lowercased())\",\"name\":\(EventJSON.quote(user.name)),\"age\":\(user.age)}"
    }

    static func todo(_ todo: Todo) -> String {
        "{\"id\":\"\(todo.id.uuidString.lowercased())\",\"title\":\(EventJSON.quote(todo.title)),\"deadline\":\"\(todo.deadline)\","
            + "\"userId\":\(todo.userId.map { "\"\($0.uuidString.lowercased())\"" } ?? "null"),"
            + "\"memo\":\(todo.memo.map(EventJSON.quote) ?? "null"),\"isCompleted\":\(todo.isCompleted),"
            + "\"tags\":[" + todo.tags.map { "\"\($0.uuidString.lowercased())\"" }.joined(separator: ",") + "]}"
    }

    static func tag(_ tag: ChronicleTodoDomain.Tag) -> String {
        "{\"id\":\"\(tag.id.uuidString.lowercased())\",\"name\":\(EventJSON.quote(tag.name)),\"color\":\(EventJSON.quote(tag.color))}"
    }

    static func stat(_ stat: DailyStat) -> String {
        "{\"date\":\"\(stat.date)\",\"total\":\(stat.total),\"completed\":\(stat.completed)}"
    }

    static func todos(_ todos: [Todo]) -> String { "[" + todos.map(todo).joined(separator: ",") + "]" }
    static func tags(_ tags: [ChronicleTodoDomain.Tag]) -> String { "[" + tags.map(tag).joined(separator: ",") + "]" }
}

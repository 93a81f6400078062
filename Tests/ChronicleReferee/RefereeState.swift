import Foundation

/// A live user: `{"id","name","age"}`.
public struct RefereeUser: Sendable, Equatable {
    public var id: String
    public var name: String
    public var age: Int
    public init(id: String, name: String, age: Int) {
        self.id = id; self.name = name; self.age = age
    }
}

/// A live todo: `{"id","title","deadline","userId","memo","isCompleted","tags"}`,
/// `tags` being the sorted ids of its live tags.
public struct RefereeTodo: Sendable, Equatable {
    public var id: String
    public var title: String
    public var deadline: String
    public var userId: String?
    public var memo: String?
    public var isCompleted: Bool
    public var tags: [String]
    public init(
        id: String, title: String, deadline: String, userId: String? = nil,
        memo: String? = nil, isCompleted: Bool = false, tags: [String] = []
    ) {
        self.id = id; self.title = title; self.deadline = deadline; self.userId = userId
        self.memo = memo; self.isCompleted = isCompleted; self.tags = tags
    }
}

/// A live tag: `{"id","name","color"}`, `name` as shown (with ` (2)`… on a collision).
public struct RefereeTag: Sendable, Equatable {
    public var id: String
    public var name: String
    public var color: String
    public init(id: String, name: String, color: String) {
        self.id = id; self.name = name; self.color = color
    }
}

/// A day's stats: `{"date","total","completed"}`; only days with `total > 0` exist.
public struct RefereeStat: Sendable, Equatable {
    public var date: String
    public var total: Int
    public var completed: Int
    public init(date: String, total: Int, completed: Int) {
        self.date = date; self.total = total; self.completed = completed
    }
}

/// A `tag-renamed` conflict: a live tag shown with ` (n)`. The product's `detail` text is
/// not modelled; `shownName` is what the tag is shown as.
public struct RefereeTagRenamed: Sendable, Hashable {
    public static let kind = "tag-renamed"
    public var stream: String
    public var shownName: String
    public init(stream: String, shownName: String) {
        self.stream = stream; self.shownName = shownName
    }
}

/// What every device shows once all have pushed and pulled everything.
///
/// ```swift
/// let state = RefereeState.fold(try RefereeEvent.parseArray(json: logJSON))
/// #expect(state.todos["0193…"]?.isCompleted == true)
/// ```
public struct RefereeState: Sendable, Equatable {
    public var users: [String: RefereeUser] = [:]
    /// Live todos only: not deleted, and whose user, if any, is live.
    public var todos: [String: RefereeTodo] = [:]
    public var tags: [String: RefereeTag] = [:]
    /// Keyed by date.
    public var stats: [String: RefereeStat] = [:]
    public var tagRenamed: Set<RefereeTagRenamed> = []
    public init() {}
}

/// The four read lists as `--json` would print them, one JSON object text per element.
public struct RefereeLists: Sendable, Equatable, CustomStringConvertible {
    public var users: [String]
    public var todos: [String]
    public var tags: [String]
    public var stats: [String]

    public var description: String {
        [("users", users), ("todos", todos), ("tags", tags), ("stats", stats)]
            .map { "\($0): [\($1.joined(separator: ","))]" }.joined(separator: "\n")
    }
}

extension RefereeState {
    /// The lists in docs/CLI.md's key order and sort order: users by name then id, todos by
    /// deadline then id, tags by case-folded (shown) name then id, stats by date.
    public func jsonLists() -> RefereeLists {
        func text(_ value: String?) -> String {
            guard let value else { return "null" }
            var out = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        // Tags by case-folded shown name ("work" before "work (2)", docs/PROTOCOL.md); names compare as Swift strings (NFC scalar order), the docs name no collation.
        let folded = tags.mapValues { RefereeCaseFolding.fold($0.name) }
        return RefereeLists(
            users: users.values.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
                .map { "{\"id\":\(text($0.id)),\"name\":\(text($0.name)),\"age\":\($0.age)}" },
            todos: todos.values.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }.map {
                "{\"id\":\(text($0.id)),\"title\":\(text($0.title)),\"deadline\":\(text($0.deadline)),"
                    + "\"userId\":\(text($0.userId)),\"memo\":\(text($0.memo)),"
                    + "\"isCompleted\":\($0.isCompleted),\"tags\":[\($0.tags.map(text).joined(separator: ","))]}"
            },
            tags: tags.values.sorted { (folded[$0.id]!, $0.id) < (folded[$1.id]!, $1.id) }
                .map { "{\"id\":\(text($0.id)),\"name\":\(text($0.name)),\"color\":\(text($0.color))}" },
            stats: stats.values.sorted { $0.date < $1.date }
                .map { "{\"date\":\(text($0.date)),\"total\":\($0.total),\"completed\":\($0.completed)}" })
    }
}

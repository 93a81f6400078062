import ChronicleTodoDomain
import Foundation
import UUIDText
import ChronicleTestSupport

/// An independent fold of the domain events, written for the tests from the SPEC alone
/// (it shares no code with the projections or with the model's fold): stats are counted
/// from the live todos, not moved by deltas.
struct ReferenceModels: Equatable {
    var users: [UUID: User] = [:]
    /// Live todos; `tags` holds every tag a todo was tagged with and not untagged.
    private var tagged: [UUID: Todo] = [:]
    var tags: [UUID: Tag] = [:]
    /// Deleted entities as they were, for a restoration.
    private var deletedUsers: [UUID: User] = [:]
    private var deletedTodos: [UUID: Todo] = [:]
    private var deletedTags: [UUID: Tag] = [:]

    /// Live todos, each showing its live tags sorted by their lowercase text.
    var todos: [UUID: Todo] {
        tagged.mapValues { todo in
            var shown = todo
            shown.tags = todo.tags.filter { tags[$0] != nil }.sorted { $0.lowercasedString < $1.lowercasedString }
            return shown
        }
    }

    mutating func apply(_ event: TodoAppEvent) {
        switch event {
        case let .userCreated(id, name, age):
            if users[id] == nil { users[id] = User(id: id, name: name, age: age) }
        case let .userUpdated(id, name, age):
            if let name { users[id]?.name = name }
            if let age { users[id]?.age = age }
        case let .userDeleted(id):
            deletedUsers[id] = users.removeValue(forKey: id)
        case let .userRestored(id):
            if let user = deletedUsers.removeValue(forKey: id) { users[id] = user }
        case let .todoCreated(id, title, deadline, userId, memo):
            if tagged[id] == nil, deletedTodos[id] == nil {
                tagged[id] = Todo(id: id, title: title, deadline: deadline, userId: userId, memo: memo == "" ? nil : memo)
            }
        case let .todoUpdated(id, title, deadline, memo):
            if let title { tagged[id]?.title = title }
            if let deadline { tagged[id]?.deadline = deadline }
            if let memo { tagged[id]?.memo = memo.isEmpty ? nil : memo }
        case let .todoCompleted(id):
            tagged[id]?.isCompleted = true
        case let .todoReopened(id):
            tagged[id]?.isCompleted = false
        case let .todoDeleted(id):
            deletedTodos[id] = tagged.removeValue(forKey: id)
        case let .todoRestored(id):
            if let todo = deletedTodos.removeValue(forKey: id) { tagged[id] = todo }
        case let .todoTagged(id, tagId):
            if tagged[id]?.tags.contains(tagId) == false { tagged[id]?.tags.append(tagId) }
        case let .todoUntagged(id, tagId):
            tagged[id]?.tags.removeAll { $0 == tagId }
        case let .tagCreated(id, name, color):
            if tags[id] == nil { tags[id] = Tag(id: id, name: name, color: color) }
        case let .tagUpdated(id, name, color):
            if let name { tags[id]?.name = name }
            if let color { tags[id]?.color = color }
        case let .tagDeleted(id):
            deletedTags[id] = tags.removeValue(forKey: id)
        case let .tagRestored(id):
            if let tag = deletedTags.removeValue(forKey: id) { tags[id] = tag }
        }
    }

    var sortedUsers: [User] {
        users.values.sorted { a, b in a.name != b.name ? a.name < b.name : a.id.lowercasedString < b.id.lowercasedString }
    }

    var sortedTodos: [Todo] {
        todos.values.sorted { a, b in
            a.deadline != b.deadline ? a.deadline < b.deadline : a.id.lowercasedString < b.id.lowercasedString
        }
    }

    func todos(on day: CalendarDay? = nil, user: UUID? = nil, tag: UUID? = nil) -> [Todo] {
        sortedTodos.filter { todo in
            (day == nil || todo.deadline == day) && (user == nil || todo.userId == user) && (tag == nil || todo.tags.contains(tag!))
        }
    }

    /// Tags by case-folded name (compared as the UTF-8 bytes of its NFC form), then id.
    var sortedTags: [Tag] {
        tags.values.sorted { a, b in
            let (x, y) = (Array(Tag.foldedName(a.name).utf8), Array(Tag.foldedName(b.name).utf8))
            return x != y ? x.lexicographicallyPrecedes(y) : a.id.lowercasedString < b.id.lowercasedString
        }
    }

    /// Per day: every live todo due that day, and the completed ones among them.
    var stats: [DailyStat] {
        var byDay: [CalendarDay: DailyStat] = [:]
        for todo in todos.values {
            var stat = byDay[todo.deadline] ?? DailyStat(date: todo.deadline, total: 0, completed: 0)
            stat.total += 1
            if todo.isCompleted { stat.completed += 1 }
            byDay[todo.deadline] = stat
        }
        return byDay.values.sorted { $0.date < $1.date }
    }
}

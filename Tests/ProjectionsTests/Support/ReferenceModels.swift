import Domain
import Foundation
import UUIDText

/// An independent fold of the domain events, written for the tests from the SPEC alone
/// (it shares no code with the projections or with `DomainSnapshot`): stats are counted
/// from the live todos, not moved by deltas.
struct ReferenceModels: Equatable {
    var users: [UUID: User] = [:]
    var todos: [UUID: Todo] = [:]

    mutating func apply(_ event: DomainEvent) {
        switch event {
        case let .userCreated(id, name, age):
            if users[id] == nil { users[id] = User(id: id, name: name, age: age) }
        case let .userUpdated(id, name, age):
            if let name { users[id]?.name = name }
            if let age { users[id]?.age = age }
        case let .userDeleted(id):
            users.removeValue(forKey: id)
        case let .todoCreated(id, title, deadline, userId, memo):
            if todos[id] == nil { todos[id] = Todo(id: id, title: title, deadline: deadline, userId: userId, memo: memo) }
        case let .todoUpdated(id, title, deadline, memo):
            if let title { todos[id]?.title = title }
            if let deadline { todos[id]?.deadline = deadline }
            if let memo { todos[id]?.memo = memo }
        case let .todoCompleted(id):
            todos[id]?.isCompleted = true
        case let .todoReopened(id):
            todos[id]?.isCompleted = false
        case let .todoDeleted(id):
            todos.removeValue(forKey: id)
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

    func todos(on day: CalendarDay? = nil, user: UUID? = nil) -> [Todo] {
        sortedTodos.filter { todo in (day == nil || todo.deadline == day) && (user == nil || todo.userId == user) }
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

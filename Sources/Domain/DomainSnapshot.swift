import Foundation
import UUIDText

/// All three read models (users, todos, daily stats) held in memory.
///
/// Folding the log into a snapshot is how `replay` shows the past and how
/// `verify --deep` checks the stored projections.
///
/// ```swift
/// var snapshot = DomainSnapshot()
/// for event in events { snapshot.apply(event) }
/// snapshot.sortedStats   // [DailyStat(date: 2026-03-01, total: 2, completed: 1), …]
/// ```
public struct DomainSnapshot: Sendable, Equatable {
    /// Live users by id.
    public private(set) var users: [UUID: User]
    /// Live todos by id.
    public private(set) var todos: [UUID: Todo]
    /// Stats of the days that have at least one live todo.
    public private(set) var stats: [CalendarDay: DailyStat]

    /// An empty snapshot, as of position 0.
    public init() {
        users = [:]
        todos = [:]
        stats = [:]
    }

    /// Folds one event in.
    ///
    /// Total: an event that does not apply (update or delete of an entity that
    /// is not live, creation of an id that is already live) changes nothing.
    /// Deleting a user does not delete todos here; the log carries one
    /// `TodoDeleted` per todo.
    public mutating func apply(_ event: DomainEvent) {
        switch event {
        case .userCreated(let id, let name, let age):
            guard users[id] == nil else { return }
            users[id] = User(id: id, name: name, age: age)
        case .userUpdated(let id, let name, let age):
            guard var user = users[id] else { return }
            if let name { user.name = name }
            if let age { user.age = age }
            users[id] = user
        case .userDeleted(let id):
            users[id] = nil
        case .todoCreated(let id, let title, let deadline, let userId, let memo):
            guard todos[id] == nil else { return }
            changeTodo(id, to: Todo(id: id, title: title, deadline: deadline, userId: userId, memo: memo))
        case .todoUpdated(let id, let title, let deadline, let memo):
            guard var todo = todos[id] else { return }
            if let title { todo.title = title }
            if let deadline { todo.deadline = deadline }
            if let memo { todo.memo = memo }
            changeTodo(id, to: todo)
        case .todoCompleted(let id):
            guard var todo = todos[id] else { return }
            todo.isCompleted = true
            changeTodo(id, to: todo)
        case .todoReopened(let id):
            guard var todo = todos[id] else { return }
            todo.isCompleted = false
            changeTodo(id, to: todo)
        case .todoDeleted(let id):
            changeTodo(id, to: nil)
        }
    }

    /// Users sorted by name, then id (lowercase string).
    public var sortedUsers: [User] {
        users.values
            .map { (user: $0, id: $0.id.lowercasedString) }
            .sorted { ($0.user.name, $0.id) < ($1.user.name, $1.id) }
            .map(\.user)
    }

    /// Todos sorted by deadline, then id (lowercase string).
    public var sortedTodos: [Todo] {
        todos.values
            .map { (todo: $0, id: $0.id.lowercasedString) }
            .sorted { ($0.todo.deadline, $0.id) < ($1.todo.deadline, $1.id) }
            .map(\.todo)
    }

    /// Stats sorted by date.
    public var sortedStats: [DailyStat] {
        stats.values.sorted { $0.date < $1.date }
    }

    /// Replaces a todo (nil removes it) and moves the stats accordingly.
    private mutating func changeTodo(_ id: UUID, to after: Todo?) {
        let before = todos[id]
        todos[id] = after
        for delta in DailyStatDelta.between(before: before, after: after) {
            var stat = stats[delta.date] ?? DailyStat(date: delta.date, total: 0, completed: 0)
            stat.total += delta.total
            stat.completed += delta.completed
            stats[delta.date] = stat.total > 0 ? stat : nil
        }
    }
}

import Foundation
import UUIDText

/// All the read models (users, todos, daily stats, tags) held in memory.
///
/// Folding the log into a snapshot is how `replay` shows the past and how
/// `verify --deep` checks the stored projections.
///
/// ```swift
/// var snapshot = DomainSnapshot()
/// for event in events { snapshot.apply(event) }
/// snapshot.sortedStats   // [DailyStat(date: 2026-03-01, total: 2, completed: 1), …]
/// snapshot.sortedTags    // [Tag(id: …, name: "Home", color: "#00aa00"), …]
/// ```
public struct DomainSnapshot: Sendable, Equatable {
    /// Live users by id.
    public private(set) var users: [UUID: User]
    /// Live todos by id; each todo's `tags` are its live tags.
    public private(set) var todos: [UUID: Todo]
    /// Stats of the days that have at least one live todo.
    public private(set) var stats: [CalendarDay: DailyStat]
    /// Live tags by id.
    public private(set) var tags: [UUID: Tag]
    /// Every tag id each live todo is tagged with, live or not, so a tag that
    /// comes back shows on its todos again; `todos[id].tags` is this filtered
    /// by ``tags``. Todos without tags have no entry.
    private var taggedWith: [UUID: Set<UUID>]

    /// An empty snapshot, as of position 0.
    public init() {
        users = [:]
        todos = [:]
        stats = [:]
        tags = [:]
        taggedWith = [:]
    }

    /// Folds one event in.
    ///
    /// Total: an event that does not apply (update or delete of an entity that
    /// is not live, creation of an id that is already live, tagging or
    /// untagging a todo that is not live) changes nothing.
    /// Deleting a user does not delete todos here; the log carries one
    /// `TodoDeleted` per todo. Deleting a tag hides it from every todo, and a
    /// todo forgets its tags when it is deleted.
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
            // No tags yet: a todo's tagged set goes when the todo does.
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
            taggedWith[id] = nil
            changeTodo(id, to: nil)
        case .tagCreated(let id, let name, let color):
            guard tags[id] == nil else { return }
            tags[id] = Tag(id: id, name: name, color: color)
            showTagsAgain(ofTodosTaggedWith: id)
        case .tagUpdated(let id, let name, let color):
            guard var tag = tags[id] else { return }
            if let name { tag.name = name }
            if let color { tag.color = color }
            tags[id] = tag
        case .tagDeleted(let id):
            guard tags.removeValue(forKey: id) != nil else { return }
            showTagsAgain(ofTodosTaggedWith: id)
        case .todoTagged(let id, let tagId):
            guard todos[id] != nil else { return }
            taggedWith[id, default: []].insert(tagId)
            showTags(ofTodo: id)
        case .todoUntagged(let id, let tagId):
            guard todos[id] != nil, taggedWith[id]?.remove(tagId) != nil else { return }
            if taggedWith[id]?.isEmpty == true { taggedWith[id] = nil }
            showTags(ofTodo: id)
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

    /// Live tags sorted by ``Tag/foldedName(_:)``, then id (lowercase string).
    public var sortedTags: [Tag] {
        tags.values
            .map { (tag: $0, name: Tag.foldedName($0.name), id: $0.id.lowercasedString) }
            .sorted { ($0.name, $0.id) < ($1.name, $1.id) }
            .map(\.tag)
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

    /// Recomputes the visible tags of every todo tagged with `tagId`, after
    /// that tag appeared or went.
    private mutating func showTagsAgain(ofTodosTaggedWith tagId: UUID) {
        for (todoID, tagged) in taggedWith where tagged.contains(tagId) {
            showTags(ofTodo: todoID)
        }
    }

    /// Sets a live todo's `tags` to its live tags, sorted. Tags never move
    /// stats, so this bypasses ``changeTodo(_:to:)``.
    private mutating func showTags(ofTodo id: UUID) {
        guard todos[id] != nil else { return }
        let live = taggedWith[id, default: []].filter { tags[$0] != nil }
        todos[id]?.tags = Todo.sortedTagIDs(live)
    }
}

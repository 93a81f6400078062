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
    /// Users deleted: their todos are not live, whichever came first.
    private var deletedUsers: Set<UUID>
    /// Each live tag's own name and the rank of the write that gave it (``tags`` shows
    /// the name with a ` (2)`, ` (3)`, … when an earlier-ranked live tag has it too).
    private var tagNames: [UUID: (name: String, rank: MergeRank)]
    private var applied: UInt64

    /// An empty snapshot, as of position 0.
    public init() {
        users = [:]
        todos = [:]
        stats = [:]
        tags = [:]
        taggedWith = [:]
        deletedUsers = []
        tagNames = [:]
        applied = 0
    }

    public static func == (a: DomainSnapshot, b: DomainSnapshot) -> Bool {
        a.users == b.users && a.todos == b.todos && a.stats == b.stats && a.tags == b.tags
    }

    /// Folds one event in, ranked after every event folded so far.
    public mutating func apply(_ event: DomainEvent) {
        apply(event, rank: MergeRank(upstream: nil, position: applied + 1))
    }

    /// Folds one event in; `rank` orders the names of tags that collide (see ``MergeRank``).
    ///
    /// Total: an event that does not apply (update or delete of an entity that
    /// is not live, creation of an id that is already live, tagging or
    /// untagging a todo that is not live) changes nothing. A todo whose user is
    /// deleted is not live, whichever event came first (the log also carries a
    /// `TodoDeleted` per todo the deleting replica knew). Deleting a tag hides it
    /// from every todo, and a todo forgets its tags when it is deleted.
    public mutating func apply(_ event: DomainEvent, rank: MergeRank) {
        applied = max(applied, rank.position)
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
            deletedUsers.insert(id)
            for (todoID, todo) in todos where todo.userId == id {
                taggedWith[todoID] = nil
                changeTodo(todoID, to: nil)
            }
        case .todoCreated(let id, let title, let deadline, let userId, let memo):
            guard todos[id] == nil, userId.map(deletedUsers.contains) != true else { return }
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
            tagNames[id] = (name, rank)
            showNames(of: Tag.foldedName(name))
            showTagsAgain(ofTodosTaggedWith: id)
        case .tagUpdated(let id, let name, let color):
            guard tags[id] != nil else { return }
            if let color { tags[id]?.color = color }
            if let name, let old = tagNames[id] {
                tagNames[id] = (name, rank)
                showNames(of: Tag.foldedName(old.name))
                showNames(of: Tag.foldedName(name))
            }
        case .tagDeleted(let id):
            guard tags.removeValue(forKey: id) != nil, let old = tagNames.removeValue(forKey: id) else { return }
            showNames(of: Tag.foldedName(old.name))
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

    /// Shows the live tags whose names fold to `folded`, in the order of the writes that named them:
    /// the first with its name, the next with ` (2)` appended, and so on (``TagNames``).
    private mutating func showNames(of folded: String) {
        let group = tagNames.filter { Tag.foldedName($0.value.name) == folded }
            .map { (id: $0.key, name: $0.value.name, rank: $0.value.rank) }
        for (id, shown) in TagNames.shown(group) { tags[id]?.name = shown }
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

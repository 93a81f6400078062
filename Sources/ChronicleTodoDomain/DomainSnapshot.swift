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
    /// Every user ever created, deleted or not (a restoration brings one back as it was).
    private var userStates: [UUID: Kept<User>]
    /// Every todo ever created, deleted or not, with every tag id it is tagged with, live or
    /// not, so a tag that comes back shows on its todos again. ``todos`` shows those not
    /// deleted whose user is not deleted, with their live tags.
    private var todoStates: [UUID: Kept<Todo>]
    /// Every tag ever created, with its own name and the rank of the write that gave it
    /// (``tags`` shows the name with a ` (2)`, ` (3)`, … when an earlier-ranked live tag has
    /// it too).
    private var tagStates: [UUID: Kept<RankedTag>]
    private var applied: UInt64

    /// An entity as the snapshot keeps it: its fields, and whether it is deleted.
    private struct Kept<Value: Sendable>: Sendable {
        var value: Value
        var isDeleted = false
    }

    private struct RankedTag: Sendable {
        var tag: Tag
        var nameRank: MergeRank
    }

    /// An empty snapshot, as of position 0.
    public init() {
        users = [:]
        todos = [:]
        stats = [:]
        tags = [:]
        userStates = [:]
        todoStates = [:]
        tagStates = [:]
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
    /// Total: an event that does not apply (a creation of an id that exists, a change of an
    /// entity that is not live, a restoration of one that is not deleted) changes nothing.
    /// A deletion keeps the entity as it was, and a restoration brings it back so. A todo
    /// whose user is deleted is not live, whichever event came first, and comes back with
    /// its user. Deleting a tag hides it from every todo, and restoring it shows it again.
    public mutating func apply(_ event: DomainEvent, rank: MergeRank) {
        applied = max(applied, rank.position)
        switch event {
        case .userCreated(let id, let name, let age):
            guard userStates[id] == nil else { return }
            userStates[id] = Kept(value: User(id: id, name: name, age: age))
            users[id] = userStates[id]?.value
        case .userUpdated(let id, let name, let age):
            guard var user = userStates[id], !user.isDeleted else { return }
            if let name { user.value.name = name }
            if let age { user.value.age = age }
            userStates[id] = user
            users[id] = user.value
        case .userDeleted(let id), .userRestored(let id):
            let deleted = event.lifecycle == .deleted
            guard let user = userStates[id], user.isDeleted != deleted else { return }
            userStates[id]?.isDeleted = deleted
            users[id] = deleted ? nil : user.value
            for (todoID, todo) in todoStates where todo.value.userId == id { showTodo(todoID) }
        case .todoCreated(let id, let title, let deadline, let userId, let memo):
            guard todoStates[id] == nil else { return }
            todoStates[id] = Kept(value: Todo(id: id, title: title, deadline: deadline, userId: userId,
                                              memo: memo.flatMap(Todo.memo(written:))))
            showTodo(id)
        case .todoUpdated, .todoCompleted, .todoReopened, .todoTagged, .todoUntagged:
            let id = event.entityID
            guard var todo = todoStates[id], !todo.isDeleted else { return }
            switch event {
            case .todoUpdated(_, let title, let deadline, let memo):
                if let title { todo.value.title = title }
                if let deadline { todo.value.deadline = deadline }
                if let memo { todo.value.memo = Todo.memo(written: memo) }
            case .todoCompleted: todo.value.isCompleted = true
            case .todoReopened: todo.value.isCompleted = false
            case .todoTagged(_, let tagId):
                if !todo.value.tags.contains(tagId) { todo.value.tags.append(tagId) }
            case .todoUntagged(_, let tagId): todo.value.tags.removeAll { $0 == tagId }
            default: return
            }
            todoStates[id] = todo
            showTodo(id)
        case .todoDeleted(let id), .todoRestored(let id):
            let deleted = event.lifecycle == .deleted
            guard todoStates[id]?.isDeleted == !deleted else { return }
            todoStates[id]?.isDeleted = deleted
            showTodo(id)
        case .tagCreated(let id, let name, let color):
            guard tagStates[id] == nil else { return }
            tagStates[id] = Kept(value: RankedTag(tag: Tag(id: id, name: name, color: color), nameRank: rank))
            showNames(of: Tag.foldedName(name))
            showTagsAgain(ofTodosTaggedWith: id)
        case .tagUpdated(let id, let name, let color):
            guard var tag = tagStates[id], !tag.isDeleted else { return }
            let old = tag.value.tag.name
            if let color { tag.value.tag.color = color }
            if let name {
                tag.value.tag.name = name
                tag.value.nameRank = rank
            }
            tagStates[id] = tag
            tags[id]?.color = tag.value.tag.color
            showNames(of: Tag.foldedName(old))
            showNames(of: Tag.foldedName(tag.value.tag.name))
        case .tagDeleted(let id), .tagRestored(let id):
            let deleted = event.lifecycle == .deleted
            guard let tag = tagStates[id], tag.isDeleted != deleted else { return }
            tagStates[id]?.isDeleted = deleted
            if deleted { tags[id] = nil }
            showNames(of: Tag.foldedName(tag.value.tag.name))
            showTagsAgain(ofTodosTaggedWith: id)
        }
    }

    /// Forgets everything about the entity of `stream` (`user-…`, `todo-…`, `tag-…`), as if none
    /// of its events had been folded; a merge then folds its events again in their order.
    public mutating func forget(stream: String) {
        guard let (kind, id) = EntityKind.parse(stream: stream) else { return }
        switch kind {
        case .user:
            userStates[id] = nil
            users[id] = nil
            for (todoID, todo) in todoStates where todo.value.userId == id { showTodo(todoID) }
        case .todo:
            todoStates[id] = nil
            showTodo(id)
        case .tag:
            guard let tag = tagStates.removeValue(forKey: id) else { return }
            tags[id] = nil
            showNames(of: Tag.foldedName(tag.value.tag.name))
            showTagsAgain(ofTodosTaggedWith: id)
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

    /// Shows todo `id` as it now stands: live when neither it nor its user is deleted, with
    /// its live tags sorted; the stats move with it.
    private mutating func showTodo(_ id: UUID) {
        var after: Todo?
        if let kept = todoStates[id], !kept.isDeleted, kept.value.userId.map({ userStates[$0]?.isDeleted == true }) != true {
            var todo = kept.value
            todo.tags = Todo.sortedTagIDs(todo.tags.filter { tags[$0] != nil })
            after = todo
        }
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
        let group = tagStates.filter { !$0.value.isDeleted && Tag.foldedName($0.value.value.tag.name) == folded }
            .map { (id: $0.key, name: $0.value.value.tag.name, rank: $0.value.value.nameRank) }
        for (id, shown) in TagNames.shown(group) {
            guard var tag = tagStates[id]?.value.tag else { continue }
            tag.name = shown
            tags[id] = tag
        }
    }

    /// Shows again every todo tagged with `tagId`, after that tag appeared or went.
    private mutating func showTagsAgain(ofTodosTaggedWith tagId: UUID) {
        for (todoID, todo) in todoStates where todo.value.tags.contains(tagId) { showTodo(todoID) }
    }
}

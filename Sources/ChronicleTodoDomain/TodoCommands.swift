import Foundation

/// Decides the events for todo commands, or why a command is rejected.
///
/// Pure functions, like ``UserCommands``: argument checks come before state
/// checks, and nothing is mutated.
///
/// ```swift
/// let event = try TodoCommands.create(id: UUID(), title: "Pay rent", deadline: "2026-03-01",
///                                     userId: nil, owner: nil, memo: nil)
/// var todo = TodoAggregate()
/// todo.apply(event)
/// try TodoCommands.complete(todo, id: event.entityID)   // .todoCompleted
/// ```
public enum TodoCommands {
    /// Decides `TodoCreated`.
    ///
    /// title non-empty after trimming, at most 500 Characters (stored trimmed);
    /// deadline parsed strictly; if userId given, `owner` (that user's aggregate)
    /// must be live. memo optional, stored as given. `owner` is ignored without `userId`.
    /// - throws: ``DomainError/emptyTitle``, ``DomainError/titleTooLong(_:)``,
    ///   ``DomainError/invalidDate(_:)``, ``DomainError/unknownUser(_:)``,
    ///   ``DomainError/userDeleted(_:)``.
    public static func create(
        id: UUID, title: String, deadline: String, userId: UUID?, owner: UserAggregate?, memo: String?
    ) throws(DomainError) -> DomainEvent {
        let title = try validTitle(title)
        let deadline = try CalendarDay(parsing: deadline)
        if let userId {
            guard let owner else { throw .unknownUser(userId) }
            try owner.requireLive(id: userId)
        }
        return .todoCreated(id: id, title: title, deadline: deadline, userId: userId, memo: memo)
    }

    /// Decides `TodoUpdated` carrying only the given fields.
    ///
    /// At least one field (else nothingToUpdate); same validation as create.
    /// - throws: validation errors, ``DomainError/nothingToUpdate``,
    ///   ``DomainError/unknownTodo(_:)``, ``DomainError/todoDeleted(_:)``.
    public static func update(
        _ current: TodoAggregate, id: UUID, title: String?, deadline: String?, memo: String?
    ) throws(DomainError) -> DomainEvent {
        guard title != nil || deadline != nil || memo != nil else { throw .nothingToUpdate }
        let title = try title.map { (title) throws(DomainError) in try validTitle(title) }
        let deadline = try deadline.map { (text) throws(DomainError) in try CalendarDay(parsing: text) }
        _ = try current.requireLive(id: id)
        return .todoUpdated(id: id, title: title, deadline: deadline, memo: memo)
    }

    /// Decides `TodoCompleted`.
    /// - throws: ``DomainError/unknownTodo(_:)``, ``DomainError/todoDeleted(_:)``,
    ///   ``DomainError/alreadyCompleted(_:)``.
    public static func complete(_ current: TodoAggregate, id: UUID) throws(DomainError) -> DomainEvent {
        let todo = try current.requireLive(id: id)
        guard !todo.isCompleted else { throw .alreadyCompleted(id) }
        return .todoCompleted(id: id)
    }

    /// Decides `TodoReopened`.
    /// - throws: ``DomainError/unknownTodo(_:)``, ``DomainError/todoDeleted(_:)``,
    ///   ``DomainError/notCompleted(_:)``.
    public static func reopen(_ current: TodoAggregate, id: UUID) throws(DomainError) -> DomainEvent {
        let todo = try current.requireLive(id: id)
        guard todo.isCompleted else { throw .notCompleted(id) }
        return .todoReopened(id: id)
    }

    /// Decides `TodoDeleted`; completed todos may be deleted too.
    /// - throws: ``DomainError/unknownTodo(_:)``, ``DomainError/todoDeleted(_:)``.
    public static func delete(_ current: TodoAggregate, id: UUID) throws(DomainError) -> DomainEvent {
        _ = try current.requireLive(id: id)
        return .todoDeleted(id: id)
    }

    /// Decides `TodoTagged`.
    ///
    /// `tag` is the aggregate of tag `tagId`; it must be live, and the todo must
    /// not have it yet.
    ///
    /// ```swift
    /// try TodoCommands.tag(todo, id: todoID, tag: work, tagId: workID)   // .todoTagged
    /// ```
    /// - throws: ``DomainError/unknownTodo(_:)``, ``DomainError/todoDeleted(_:)``,
    ///   ``DomainError/unknownTag(_:)``, ``DomainError/tagDeleted(_:)``,
    ///   ``DomainError/alreadyTagged(todo:tag:)``.
    public static func tag(
        _ todo: TodoAggregate, id: UUID, tag: TagAggregate, tagId: UUID
    ) throws(DomainError) -> DomainEvent {
        _ = try todo.requireLive(id: id)
        _ = try tag.requireLive(id: tagId)
        guard !todo.tags.contains(tagId) else { throw .alreadyTagged(todo: id, tag: tagId) }
        return .todoTagged(id: id, tagId: tagId)
    }

    /// Decides `TodoUntagged`.
    ///
    /// The todo must have the tag, and the tag must be live: a deleted tag is no
    /// longer on any todo (as every operation on a deleted entity, untagging it is
    /// refused). The todo keeps remembering it, so a tag that comes back (undo)
    /// is on its todos again.
    ///
    /// ```swift
    /// try TodoCommands.untag(todo, id: todoID, tag: work, tagId: workID)   // .todoUntagged
    /// ```
    /// - throws: ``DomainError/unknownTodo(_:)``, ``DomainError/todoDeleted(_:)``,
    ///   ``DomainError/unknownTag(_:)``, ``DomainError/tagDeleted(_:)``, ``DomainError/notTagged(todo:tag:)``.
    public static func untag(
        _ todo: TodoAggregate, id: UUID, tag: TagAggregate, tagId: UUID
    ) throws(DomainError) -> DomainEvent {
        _ = try todo.requireLive(id: id)
        _ = try tag.requireLive(id: tagId)
        guard todo.tags.contains(tagId) else { throw .notTagged(todo: id, tag: tagId) }
        return .todoUntagged(id: id, tagId: tagId)
    }

    // MARK: - Validation

    private static func validTitle(_ raw: String) throws(DomainError) -> String {
        let title = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw .emptyTitle }
        let count = title.count
        guard count <= Todo.maxTitleLength else { throw .titleTooLong(count) }
        return title
    }
}

import Foundation

/// The state of one todo, folded from that todo's stream.
///
/// Commands decide against it, so an unknown or deleted todo can be told
/// apart and completing (or tagging) twice can be rejected. A deleted todo
/// ignores every event of its stream but a restoration, which brings it back,
/// tags included, as it was when deleted.
///
/// ```swift
/// var aggregate = TodoAggregate()
/// aggregate.apply(.todoCreated(id: id, title: "Pay rent", deadline: day, userId: nil, memo: nil))
/// aggregate.apply(.todoCompleted(id: id))
/// aggregate.apply(.todoTagged(id: id, tagId: work))
/// aggregate.todo?.isCompleted   // true
/// aggregate.tags                // [work]
/// ```
public struct TodoAggregate: Sendable, Equatable {
    /// The last known state; still set after deletion, nil before creation.
    public private(set) var todo: Todo?
    /// Whether a `TodoDeleted` has been applied.
    public private(set) var isDeleted: Bool
    /// The ids of every tag the todo is tagged with, live or not: the stream
    /// does not say which tags are deleted, so `todo.tags` stays empty here
    /// and read models filter this set by the live tags.
    public private(set) var tags: Set<UUID>

    /// Whether the todo exists and is not deleted.
    public var isLive: Bool { todo != nil && !isDeleted }

    /// An aggregate for a stream with no events yet.
    public init() {
        todo = nil
        isDeleted = false
        tags = []
    }

    /// Folds one event in.
    ///
    /// Ignores user and tag events, events about another todo, events before
    /// the todo's creation, a second creation, and anything but a restoration while deleted.
    public mutating func apply(_ event: DomainEvent) {
        if isDeleted {
            if case .todoRestored(let id) = event, todo?.id == id { isDeleted = false }
            return
        }
        // A switch, not `if case`: binding the payload with `if case` copied it whole through
        // its runtime metadata.
        switch event {
        case .todoCreated(let id, let title, let deadline, let userId, let memo):
            guard todo == nil else { return }
            todo = Todo(id: id, title: title, deadline: deadline, userId: userId, memo: memo.flatMap(Todo.memo(written:)))
            return
        default:
            break
        }
        guard var current = todo, event.entityKind == .todo, current.id == event.entityID else { return }
        switch event {
        case .todoUpdated(_, let title, let deadline, let memo):
            if let title { current.title = title }
            if let deadline { current.deadline = deadline }
            if let memo { current.memo = Todo.memo(written: memo) }
        case .todoCompleted:
            current.isCompleted = true
        case .todoReopened:
            current.isCompleted = false
        case .todoDeleted:
            isDeleted = true
        case .todoTagged(_, let tagId):
            tags.insert(tagId)
        case .todoUntagged(_, let tagId):
            tags.remove(tagId)
        case .todoCreated, .todoRestored, .userCreated, .userUpdated, .userDeleted, .userRestored,
             .tagCreated, .tagUpdated, .tagDeleted, .tagRestored:
            return
        }
        todo = current
    }
}

extension TodoAggregate {
    /// Returns the live todo `id`, or throws why there is none.
    func requireLive(id: UUID) throws(DomainError) -> Todo {
        guard let todo, todo.id == id else { throw .unknownTodo(id) }
        guard !isDeleted else { throw .todoDeleted(id) }
        return todo
    }
}

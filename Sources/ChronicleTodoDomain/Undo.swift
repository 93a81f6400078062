import Foundation

/// The compensating events of undo and redo: what puts an entity back as it was before one
/// of its events. Nothing is removed from a log; an undo is one more event.
///
/// Pure, like the commands: the caller folds the entity's stream and checks the rules that
/// span entities (a restored todo's user is live, a restored tag's name is free).
///
/// ```swift
/// Undo.inverse(of: .todoCompleted(id: id), after: [created])          // .todoReopened(id: id)
/// Undo.inverse(of: .todoUpdated(id: id, title: "B", deadline: nil, memo: nil),
///              after: [.todoCreated(id: id, title: "A", deadline: day, userId: nil, memo: nil)])
/// // .todoUpdated(id: id, title: "A", deadline: nil, memo: nil)
/// Undo.inverse(of: .userDeleted(id: ada), after: [adaCreated])        // .userRestored(id: ada)
/// ```
public enum Undo {
    /// The event that reverts `event`, given the events of its stream before it (in the
    /// merge's order): a creation is undone by a deletion, a deletion by a restoration (which
    /// brings the entity back as it was), a restoration by a deletion, an update by an update
    /// of the same fields to their values before it (an absent memo is written `""`, which
    /// clears it), a completion by a reopening and the reverse, a tagging by an untagging and
    /// the reverse. Nil when the stream before it holds no entity to put back (an update of
    /// an entity never created).
    public static func inverse(of event: DomainEvent, after earlier: [DomainEvent]) -> DomainEvent? {
        switch event {
        case .userCreated(let id, _, _), .userRestored(let id): return .userDeleted(id: id)
        case .userDeleted(let id): return .userRestored(id: id)
        case .todoCreated(let id, _, _, _, _), .todoRestored(let id): return .todoDeleted(id: id)
        case .todoDeleted(let id): return .todoRestored(id: id)
        case .tagCreated(let id, _, _), .tagRestored(let id): return .tagDeleted(id: id)
        case .tagDeleted(let id): return .tagRestored(id: id)
        case .todoCompleted(let id): return .todoReopened(id: id)
        case .todoReopened(let id): return .todoCompleted(id: id)
        case .todoTagged(let id, let tagId): return .todoUntagged(id: id, tagId: tagId)
        case .todoUntagged(let id, let tagId): return .todoTagged(id: id, tagId: tagId)
        case .userUpdated(let id, let name, let age):
            var before = UserAggregate()
            earlier.forEach { before.apply($0) }
            guard let user = before.user else { return nil }
            return .userUpdated(id: id, name: name.map { _ in user.name }, age: age.map { _ in user.age })
        case .todoUpdated(let id, let title, let deadline, let memo):
            var before = TodoAggregate()
            earlier.forEach { before.apply($0) }
            guard let todo = before.todo else { return nil }
            return .todoUpdated(id: id, title: title.map { _ in todo.title }, deadline: deadline.map { _ in todo.deadline },
                                memo: memo.map { _ in todo.memo ?? "" })
        case .tagUpdated(let id, let name, let color):
            var before = TagAggregate()
            earlier.forEach { before.apply($0) }
            guard let tag = before.tag else { return nil }
            return .tagUpdated(id: id, name: name.map { _ in tag.name }, color: color.map { _ in tag.color })
        }
    }
}

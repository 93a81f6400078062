import Foundation

/// One thing a write sets on an entity, each merged on its own: the later write in the
/// merge's order wins (``MergeRank``).
public enum MergeField: Sendable, Hashable {
    /// `name`: a user's or a tag's name; `age`: a user's age.
    case name, age
    /// A todo's fields: `title`, `deadline` and `memo`; `completion`: whether it is done.
    case title, deadline, memo, completion
    /// A tag's colour.
    case color
    /// Whether a todo carries this tag.
    case tag(UUID)
}

extension DomainEvent {
    /// The fields the event sets. Creations, deletions and restorations set none: an id is
    /// created once, and a deletion wins over every write until a restoration.
    public var writtenFields: [MergeField] {
        switch self {
        case .userUpdated(_, let name, let age):
            [name.map { _ in .name }, age.map { _ in .age }].compactMap { $0 }
        case .todoUpdated(_, let title, let deadline, let memo):
            [title.map { _ in .title }, deadline.map { _ in .deadline }, memo.map { _ in .memo }].compactMap { $0 }
        case .todoCompleted, .todoReopened:
            [.completion]
        case .tagUpdated(_, let name, let color):
            [name.map { _ in .name }, color.map { _ in .color }].compactMap { $0 }
        case .todoTagged(_, let tagId), .todoUntagged(_, let tagId):
            [.tag(tagId)]
        case .userCreated, .userDeleted, .todoCreated, .todoDeleted, .tagCreated, .tagDeleted,
             .userRestored, .todoRestored, .tagRestored:
            []
        }
    }

    /// The event without the writes to `fields` (which a later write in the merge's order
    /// holds); nil when nothing of it is left.
    ///
    /// ```swift
    /// DomainEvent.todoUpdated(id: id, title: "A", deadline: day, memo: nil).without([.title])
    /// // .todoUpdated(id: id, title: nil, deadline: day, memo: nil)
    /// ```
    public func without(_ fields: Set<MergeField>) -> DomainEvent? {
        if fields.isEmpty { return self }
        switch self {
        case .userUpdated(let id, let name, let age):
            let event = DomainEvent.userUpdated(id: id, name: fields.contains(.name) ? nil : name,
                                                age: fields.contains(.age) ? nil : age)
            return event.writtenFields.isEmpty ? nil : event
        case .todoUpdated(let id, let title, let deadline, let memo):
            let event = DomainEvent.todoUpdated(id: id, title: fields.contains(.title) ? nil : title,
                                                deadline: fields.contains(.deadline) ? nil : deadline,
                                                memo: fields.contains(.memo) ? nil : memo)
            return event.writtenFields.isEmpty ? nil : event
        case .tagUpdated(let id, let name, let color):
            let event = DomainEvent.tagUpdated(id: id, name: fields.contains(.name) ? nil : name,
                                               color: fields.contains(.color) ? nil : color)
            return event.writtenFields.isEmpty ? nil : event
        case .todoCompleted, .todoReopened, .todoTagged, .todoUntagged:
            return writtenFields.allSatisfy(fields.contains) ? nil : self
        case .userCreated, .userDeleted, .todoCreated, .todoDeleted, .tagCreated, .tagDeleted,
             .userRestored, .todoRestored, .tagRestored:
            return self
        }
    }
}

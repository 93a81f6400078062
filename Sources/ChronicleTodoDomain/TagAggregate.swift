import Foundation

/// The state of one tag, folded from that tag's stream.
///
/// Commands decide against it, so an unknown or deleted tag can be told
/// apart. A deleted tag ignores every event of its stream but a restoration,
/// which brings it back as it was when deleted.
///
/// ```swift
/// var aggregate = TagAggregate()
/// aggregate.apply(.tagCreated(id: id, name: "Work", color: "#1a2b3c"))
/// aggregate.apply(.tagDeleted(id: id))
/// aggregate.isLive        // false
/// aggregate.tag?.name     // "Work" (last known state is kept)
/// ```
public struct TagAggregate: Sendable, Equatable {
    /// The last known state; still set after deletion, nil before creation.
    public private(set) var tag: Tag?
    /// Whether a `TagDeleted` has been applied.
    public private(set) var isDeleted: Bool

    /// Whether the tag exists and is not deleted.
    public var isLive: Bool { tag != nil && !isDeleted }

    /// An aggregate for a stream with no events yet.
    public init() {
        tag = nil
        isDeleted = false
    }

    /// Folds one event in.
    ///
    /// Ignores user and todo events (`TodoTagged` included: it belongs to the
    /// todo), events about another tag, events before the tag's creation, a
    /// second creation, and anything but a restoration while deleted.
    public mutating func apply(_ event: DomainEvent) {
        if isDeleted {
            if case .tagRestored(let id) = event, tag?.id == id { isDeleted = false }
            return
        }
        switch event {
        case .tagCreated(let id, let name, let color):
            guard tag == nil else { return }
            tag = Tag(id: id, name: name, color: color)
        case .tagUpdated(let id, let name, let color):
            guard var current = tag, current.id == id else { return }
            if let name { current.name = name }
            if let color { current.color = color }
            tag = current
        case .tagDeleted(let id):
            guard let current = tag, current.id == id else { return }
            isDeleted = true
        case .tagRestored, .userCreated, .userUpdated, .userDeleted, .userRestored,
             .todoCreated, .todoUpdated, .todoCompleted, .todoReopened, .todoDeleted, .todoRestored,
             .todoTagged, .todoUntagged:
            return
        }
    }
}

extension TagAggregate {
    /// Returns the live tag `id`, or throws why there is none.
    func requireLive(id: UUID) throws(DomainError) -> Tag {
        guard let tag, tag.id == id else { throw .unknownTag(id) }
        guard !isDeleted else { throw .tagDeleted(id) }
        return tag
    }
}

import Foundation

/// The three kinds of entity with a stream of their own.
///
/// One place maps events and type names to streams, so encoding and
/// decoding cannot disagree about where an event belongs.
public enum EntityKind: Sendable, Equatable {
    /// `user`: a `User` (stream `user-<id>`); `todo`: a `Todo` (`todo-<id>`); `tag`: a `Tag` (`tag-<id>`).
    case user, todo, tag

    /// The kind a known wire type name (one of ``DomainEvent/allTypes``) is
    /// about: every type name starts with its entity (`TodoTagged` is about
    /// the todo, `TagCreated` about the tag).
    init(knownType type: String) {
        self = type.hasPrefix("User") ? .user : type.hasPrefix("Todo") ? .todo : .tag
    }

    /// What the entity's stream name starts with, before the lowercase id.
    public var streamPrefix: String {
        switch self {
        case .user: "user-"
        case .todo: "todo-"
        case .tag: "tag-"
        }
    }

    /// The kind and id of a canonical stream name (`todo-<lowercase uuid>`, …), nil for any other.
    public static func parse(stream: String) -> (EntityKind, UUID)? {
        for kind in [EntityKind.user, .todo, .tag] where stream.hasPrefix(kind.streamPrefix) {
            guard let id = UUID(hyphenated: stream.dropFirst(kind.streamPrefix.count)) else { return nil }
            return (kind, id)
        }
        return nil
    }
}

import Foundation

/// The three kinds of entity with a stream of their own: the todo app's model's entities.
///
/// Their streams are the model's (``TodoAppModel``), so that what the todo app writes and
/// what the model reads cannot disagree about where an event belongs.
public enum EntityKind: Sendable, Equatable {
    /// `user`: a `User` (stream `user-<id>`); `todo`: a `Todo` (`todo-<id>`); `tag`: a `Tag` (`tag-<id>`).
    case user, todo, tag

    /// What the entity's stream name starts with, before the lowercase id: the model's
    /// stream prefix and a dash.
    public var streamPrefix: String {
        switch self {
        case .user: TodoAppEvents.userStreamPrefix
        case .todo: TodoAppEvents.todoStreamPrefix
        case .tag: TodoAppEvents.tagStreamPrefix
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

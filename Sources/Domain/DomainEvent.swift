import Foundation
import UUIDText

/// A fact about a user or a todo, as stored in the log.
///
/// The `type` names, stream names and `data` shapes are part of the wire
/// protocol (SPEC section 2); the commands decide them and the read models
/// fold them.
///
/// ```swift
/// let event = DomainEvent.userCreated(id: id, name: "Ada", age: 36)
/// event.type                                     // "UserCreated"
/// event.stream                                   // "user-1f0e…"
/// String(decoding: event.encodedData(), as: UTF8.self)   // {"age":36,"name":"Ada"}
/// let same = try DomainEvent(type: event.type, stream: event.stream, data: event.encodedData())
/// ```
///
/// In `userUpdated` and `todoUpdated` a nil field means "unchanged".
public enum DomainEvent: Sendable, Equatable, Hashable {
    case userCreated(id: UUID, name: String, age: Int)
    case userUpdated(id: UUID, name: String?, age: Int?)
    case userDeleted(id: UUID)
    case todoCreated(id: UUID, title: String, deadline: CalendarDay, userId: UUID?, memo: String?)
    case todoUpdated(id: UUID, title: String?, deadline: CalendarDay?, memo: String?)
    case todoCompleted(id: UUID)
    case todoReopened(id: UUID)
    case todoDeleted(id: UUID)

    /// Every event type name, in declaration order.
    public static let allTypes: [String] = [
        "UserCreated", "UserUpdated", "UserDeleted",
        "TodoCreated", "TodoUpdated", "TodoCompleted", "TodoReopened", "TodoDeleted",
    ]

    /// The wire name of the event, e.g. `"TodoCompleted"`.
    public var type: String {
        switch self {
        case .userCreated: "UserCreated"
        case .userUpdated: "UserUpdated"
        case .userDeleted: "UserDeleted"
        case .todoCreated: "TodoCreated"
        case .todoUpdated: "TodoUpdated"
        case .todoCompleted: "TodoCompleted"
        case .todoReopened: "TodoReopened"
        case .todoDeleted: "TodoDeleted"
        }
    }

    /// The id of the user or todo the event is about.
    public var entityID: UUID {
        switch self {
        case .userCreated(let id, _, _), .userUpdated(let id, _, _), .userDeleted(let id),
             .todoCreated(let id, _, _, _, _), .todoUpdated(let id, _, _, _),
             .todoCompleted(let id), .todoReopened(let id), .todoDeleted(let id):
            id
        }
    }

    /// Whether the event belongs to a user stream (otherwise a todo stream).
    var isUserEvent: Bool {
        switch self {
        case .userCreated, .userUpdated, .userDeleted: true
        case .todoCreated, .todoUpdated, .todoCompleted, .todoReopened, .todoDeleted: false
        }
    }

    /// The stream the event is appended to: `user-<id>` or `todo-<id>`.
    public var stream: String {
        isUserEvent ? Self.userStream(entityID) : Self.todoStream(entityID)
    }

    /// The stream of a user: `"user-"` followed by the lowercase id.
    public static func userStream(_ id: UUID) -> String {
        userStreamPrefix + id.lowercasedString
    }

    /// The stream of a todo: `"todo-"` followed by the lowercase id.
    public static func todoStream(_ id: UUID) -> String {
        todoStreamPrefix + id.lowercasedString
    }

    static let userStreamPrefix = "user-"
    static let todoStreamPrefix = "todo-"
}

import ChronicleSchema
import ChronicleTodoDomain
import ChronicleTodoModel
import Foundation
import UUIDText

/// The tests' vocabulary of the todo app's events: a fact about a user, a todo or a tag, as
/// stored in the log, built and read through the todo app's declared model (`TodoAppModel`)
/// with Chronicle's public API alone. Workloads append these; the tests' own folds
/// (`ReferenceModels`, ``TodoAppMemory``) read them. Chronicle itself has no such enum: its
/// store decides and folds every model's events by the model.
///
/// The `type` names, stream names and `data` shapes are part of the wire protocol.
///
/// ```swift
/// let event = TodoAppEvent.userCreated(id: id, name: "Ada", age: 36)
/// event.type                                     // "UserCreated"
/// event.stream                                   // "user-1f0e…"
/// String(decoding: event.encodedData(), as: UTF8.self)   // {"age":36,"name":"Ada"}
/// let same = try TodoAppEvent(type: event.type, stream: event.stream, data: event.encodedData())
/// ```
///
/// In `userUpdated`, `todoUpdated` and `tagUpdated` a nil field means "unchanged".
/// `todoTagged` and `todoUntagged` are about the todo (`id`), so they live in
/// the todo's stream and carry the tag's id as data.
public enum TodoAppEvent: Sendable, Equatable, Hashable {
    /// Creates a user with its name and age.
    case userCreated(id: UUID, name: String, age: Int)
    /// Changes a user's name, age or both; nil leaves a field unchanged.
    case userUpdated(id: UUID, name: String?, age: Int?)
    /// Deletes a user; `userRestored` can bring it back.
    case userDeleted(id: UUID)
    /// Brings a deleted user back with its fields as they were at the deletion (undo).
    case userRestored(id: UUID)
    /// Creates a todo due on `deadline`, owned by `userId` when given, with an optional memo.
    case todoCreated(id: UUID, title: String, deadline: CalendarDay, userId: UUID?, memo: String?)
    /// Changes a todo's title, deadline or memo; nil leaves a field unchanged.
    case todoUpdated(id: UUID, title: String?, deadline: CalendarDay?, memo: String?)
    /// Marks a todo as done.
    case todoCompleted(id: UUID)
    /// Marks a completed todo as not done again.
    case todoReopened(id: UUID)
    /// Deletes a todo, completed or not; `todoRestored` can bring it back.
    case todoDeleted(id: UUID)
    /// Brings a deleted todo back with its fields and tags as they were at the deletion (undo).
    case todoRestored(id: UUID)
    /// Creates a tag with its name and colour (`#rrggbb`).
    case tagCreated(id: UUID, name: String, color: String)
    /// Changes a tag's name, colour or both; nil leaves a field unchanged.
    case tagUpdated(id: UUID, name: String?, color: String?)
    /// Deletes a tag; `tagRestored` can bring it back.
    case tagDeleted(id: UUID)
    /// Brings a deleted tag back with its name and colour as they were at the deletion (undo).
    case tagRestored(id: UUID)
    /// Puts the tag `tagId` on the todo `id`.
    case todoTagged(id: UUID, tagId: UUID)
    /// Takes the tag `tagId` off the todo `id`.
    case todoUntagged(id: UUID, tagId: UUID)

    /// Every event type name, in declaration order.
    public static let allTypes: [String] = [
        "UserCreated", "UserUpdated", "UserDeleted", "UserRestored",
        "TodoCreated", "TodoUpdated", "TodoCompleted", "TodoReopened", "TodoDeleted", "TodoRestored",
        "TagCreated", "TagUpdated", "TagDeleted", "TagRestored", "TodoTagged", "TodoUntagged",
    ]

    /// The wire name of the event, e.g. `"TodoCompleted"`.
    public var type: String {
        switch self {
        case .userCreated: "UserCreated"
        case .userUpdated: "UserUpdated"
        case .userDeleted: "UserDeleted"
        case .userRestored: "UserRestored"
        case .todoCreated: "TodoCreated"
        case .todoUpdated: "TodoUpdated"
        case .todoCompleted: "TodoCompleted"
        case .todoReopened: "TodoReopened"
        case .todoDeleted: "TodoDeleted"
        case .todoRestored: "TodoRestored"
        case .tagCreated: "TagCreated"
        case .tagUpdated: "TagUpdated"
        case .tagDeleted: "TagDeleted"
        case .tagRestored: "TagRestored"
        case .todoTagged: "TodoTagged"
        case .todoUntagged: "TodoUntagged"
        }
    }

    /// The id of the user, todo or tag the event is about (for `todoTagged`
    /// and `todoUntagged`, the todo).
    public var entityID: UUID {
        switch self {
        case .userCreated(let id, _, _), .userUpdated(let id, _, _), .userDeleted(let id), .userRestored(let id),
             .todoCreated(let id, _, _, _, _), .todoUpdated(let id, _, _, _),
             .todoCompleted(let id), .todoReopened(let id), .todoDeleted(let id), .todoRestored(let id),
             .tagCreated(let id, _, _), .tagUpdated(let id, _, _), .tagDeleted(let id), .tagRestored(let id),
             .todoTagged(let id, _), .todoUntagged(let id, _):
            id
        }
    }

    /// The stream the event is appended to: `user-<id>`, `todo-<id>` or `tag-<id>`.
    public var stream: String {
        switch self {
        case .userCreated, .userUpdated, .userDeleted, .userRestored: Self.userStream(entityID)
        case .tagCreated, .tagUpdated, .tagDeleted, .tagRestored: Self.tagStream(entityID)
        default: Self.todoStream(entityID)
        }
    }

    /// The stream of a user: `"user-"` followed by the lowercase id.
    public static func userStream(_ id: UUID) -> String {
        TodoAppEventFields.userStreamPrefix + id.lowercasedString
    }

    /// The stream of a todo: `"todo-"` followed by the lowercase id.
    public static func todoStream(_ id: UUID) -> String {
        TodoAppEventFields.todoStreamPrefix + id.lowercasedString
    }

    /// The stream of a tag: `"tag-"` followed by the lowercase id.
    ///
    /// ```swift
    /// TodoAppEvent.tagStream(id)   // "tag-1f0e…"
    /// ```
    public static func tagStream(_ id: UUID) -> String {
        TodoAppEventFields.tagStreamPrefix + id.lowercasedString
    }
}

// MARK: - Encoding

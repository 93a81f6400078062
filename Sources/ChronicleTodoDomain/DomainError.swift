import ChronicleSchema
import Foundation
import UUIDText

/// Why a domain command or decoding was rejected.
///
/// Every case renders as one line a person can act on, so the CLI can print
/// `error: \(error)` as is:
///
/// ```swift
/// DomainError.ageOutOfRange(-1).description
/// // "age must be between 0 and 150 (got -1)"
/// ```
public enum DomainError: Error, Equatable, Sendable, CustomStringConvertible {
    // MARK: - Validation

    /// The name is empty or only whitespace.
    case emptyName
    /// The name has more than ``User/maxNameLength`` characters; carries the actual count.
    case nameTooLong(Int)
    /// The age is outside ``User/ageRange``; carries the rejected age.
    case ageOutOfRange(Int)
    /// The title is empty or only whitespace.
    case emptyTitle
    /// The title has more than ``Todo/maxTitleLength`` characters; carries the actual count.
    case titleTooLong(Int)
    /// The text is not a real calendar day written `YYYY-MM-DD`; carries the text.
    case invalidDate(String)
    /// An update named no field to change.
    case nothingToUpdate
    /// The tag name is empty or only whitespace.
    case emptyTagName
    /// The tag name has more than ``Tag/maxNameLength`` characters; carries the actual count.
    case tagNameTooLong(Int)
    /// The colour is not `#` followed by six hex digits; carries the text.
    case invalidColor(String)

    // MARK: - State

    /// No user with this id was ever created.
    case unknownUser(UUID)
    /// The user existed but was deleted.
    case userDeleted(UUID)
    /// No todo with this id was ever created.
    case unknownTodo(UUID)
    /// The todo existed but was deleted.
    case todoDeleted(UUID)
    /// Completing a todo that is already completed.
    case alreadyCompleted(UUID)
    /// Reopening a todo that is not completed.
    case notCompleted(UUID)
    /// Another live tag already has this name, compared by ``Tag/foldedName(_:)``;
    /// carries the name asked for.
    case duplicateTagName(String)
    /// No tag with this id was ever created.
    case unknownTag(UUID)
    /// The tag existed but was deleted.
    case tagDeleted(UUID)
    /// Tagging a todo with a tag it already has.
    case alreadyTagged(todo: UUID, tag: UUID)
    /// Untagging a tag the todo does not have.
    case notTagged(todo: UUID, tag: UUID)

    // MARK: - Undo

    /// `undo` or `redo` of fewer than one step; carries the count asked for.
    case invalidStepCount(Int)
    /// `undo` with no command of this store left to undo.
    case nothingToUndo
    /// `redo` with nothing undone since the last command.
    case nothingToRedo
    /// The step to undo (or redo) changed an entity that changed again since, by a later
    /// command here or on another device; carries its stream and whether it was a redo.
    case overtaken(stream: String, redo: Bool)

    // MARK: - Decoding

    /// A stored event could not be decoded; carries what was wrong.
    case invalidEvent(String)

    public var description: String {
        switch self {
        case .emptyName:
            "name must not be empty"
        case .nameTooLong(let count):
            "name must be at most \(User.maxNameLength) characters (got \(count))"
        case .ageOutOfRange(let age):
            "age must be between \(User.ageRange.lowerBound) and \(User.ageRange.upperBound) (got \(age))"
        case .emptyTitle:
            "title must not be empty"
        case .titleTooLong(let count):
            "title must be at most \(Todo.maxTitleLength) characters (got \(count))"
        case .invalidDate(let text):
            "invalid date '\(text)': expected a real calendar day as YYYY-MM-DD"
        case .nothingToUpdate:
            "nothing to update: give at least one field to change"
        case .emptyTagName:
            "tag name must not be empty"
        case .tagNameTooLong(let count):
            "tag name must be at most \(Tag.maxNameLength) characters (got \(count))"
        case .invalidColor(let text):
            // Quoted: the text is whatever the user typed, newlines included.
            "invalid color \(ChronicleModel.EventProblem.quotedName(text)): expected '#' and six hex digits, like #1a2b3c"
        case .unknownUser(let id):
            "unknown user \(id.lowercasedString)"
        case .userDeleted(let id):
            "user \(id.lowercasedString) is deleted"
        case .unknownTodo(let id):
            "unknown todo \(id.lowercasedString)"
        case .todoDeleted(let id):
            "todo \(id.lowercasedString) is deleted"
        case .alreadyCompleted(let id):
            "todo \(id.lowercasedString) is already completed"
        case .notCompleted(let id):
            "todo \(id.lowercasedString) is not completed"
        case .duplicateTagName(let name):
            "a tag named \(ChronicleModel.EventProblem.quotedName(name)) already exists"
        case .unknownTag(let id):
            "unknown tag \(id.lowercasedString)"
        case .tagDeleted(let id):
            "tag \(id.lowercasedString) is deleted"
        case .alreadyTagged(let todo, let tag):
            "todo \(todo.lowercasedString) already has tag \(tag.lowercasedString)"
        case .notTagged(let todo, let tag):
            "todo \(todo.lowercasedString) does not have tag \(tag.lowercasedString)"
        case .invalidStepCount(let count):
            "steps must be at least 1 (got \(count))"
        case .nothingToUndo:
            "nothing to undo"
        case .nothingToRedo:
            "nothing to redo"
        case .overtaken(let stream, let redo):
            "cannot \(redo ? "redo" : "undo"): \(ChronicleModel.EventProblem.quotedName(stream)) changed since, by a later command here or on another device"
        case .invalidEvent(let reason):
            "invalid event: \(reason)"
        }
    }
}

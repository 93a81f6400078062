import ChronicleSchema
import Foundation

extension DomainError {
    /// The todo app's text for what its model refused in a command on entity `subject`: an
    /// unknown or deleted user, todo or tag, a completion of a completed todo, a tag the todo
    /// has already, a tag name taken. Nil for a refusal the app's own input checks
    /// (``TodoAppInput``) leave no room for, or one that needs `subject` when it is nil.
    public init?(refusal problem: ChronicleModel.CommandProblem, of subject: UUID?) {
        switch problem.reason {
        case .unknown("User", let id): self = .unknownUser(id)
        case .unknown("Todo", let id): self = .unknownTodo(id)
        case .unknown("Tag", let id): self = .unknownTag(id)
        case .deleted("User", let id): self = .userDeleted(id)
        case .deleted("Todo", let id): self = .todoDeleted(id)
        case .deleted("Tag", let id): self = .tagDeleted(id)
        case .alreadySet("isCompleted", let completed):
            guard let subject else { return nil }
            self = completed ? .alreadyCompleted(subject) : .notCompleted(subject)
        case .alreadyMember("tags", let tag):
            guard let subject else { return nil }
            self = .alreadyTagged(todo: subject, tag: tag)
        case .notMember("tags", let tag):
            guard let subject else { return nil }
            self = .notTagged(todo: subject, tag: tag)
        case .taken("name", let name): self = .duplicateTagName(name)
        case .nothingToUpdate: self = .nothingToUpdate
        default: return nil
        }
    }
}

import ChronicleSchema
import ChronicleTodoDomain
import ChronicleProjections
import Foundation
import UUIDText

/// Commands decided together and appended as one batch: all of them or none, one undo step.
/// Given to the body of ``ChronicleStore/write(_:)``; each command sees what the ones before
/// it in the step decided (a user created first can be given a todo next).
///
/// ```swift
/// let written = try await store.write { step in
///     let ada = try await step.createUser(name: "Ada", age: 36)
///     return try await step.createTodo(title: "Notes", deadline: "2026-12-01", userId: ada.id)
/// }
/// print(written.value.title, "at position", written.position)
/// ```
///
/// The step is valid only inside the body, and the body may run more than once: when another
/// writer changed what the step read, the store decides the whole step again on fresh state.
/// Keep the body free of other side effects.
///
/// Each command is the todo app's model deciding (`ChronicleModel.Step`), after the app's
/// own checks of the values given (`TodoAppInput`), so that its refusals keep their texts.
public final class WriteStep {
    /// The commands decided so far, on the store as read when the step began.
    private(set) var step: ChronicleModel.Step<StoreReading>

    init(reader: ChronicleModel.EventReader, reading: StoreReading) {
        step = ChronicleModel.Step(reader, reading: reading)
    }

    /// Decides `action` on entity `id` of `entity`; a refusal is thrown as the todo app words it.
    func decide(_ entity: String, _ id: UUID, _ action: ChronicleModel.Command.Action) throws(ChronicleError) {
        do {
            try step.decide(ChronicleModel.Command(entity: entity, id: id, action: action))
        } catch let problem as ChronicleModel.CommandProblem {
            throw DomainError(refusal: problem, of: id).map(ChronicleError.rejected) ?? .refused(problem)
        } catch {
            throw ChronicleError(error)
        }
    }

    /// Entity `id` as the step leaves it (nil: none).
    func state(_ entity: String, _ id: UUID) throws(ChronicleError) -> ChronicleModel.EntityState? {
        try ChronicleError.mapping { try step.state(of: entity, id: id) }
    }

    /// The user as the step leaves it.
    func user(_ id: UUID) throws(ChronicleError) -> User {
        guard let state = try state("User", id), let user = User(state) else { throw .rejected(.unknownUser(id)) }
        return user
    }

    /// The todo as the step leaves it, with its live tags only, as read models show it.
    func todo(_ id: UUID) throws(ChronicleError) -> Todo {
        try ChronicleError.mapping {
            guard let state = try state("Todo", id), let todo = try Todo(state, isShownTag: { tag in
                try self.state("Tag", tag).map { !$0.isDeleted } ?? false
            }) else { throw ChronicleError.rejected(.unknownTodo(id)) }
            return todo
        }
    }

    /// The tag as the step leaves it.
    func tag(_ id: UUID) throws(ChronicleError) -> Tag {
        guard let state = try state("Tag", id), let tag = Tag(state) else { throw .rejected(.unknownTag(id)) }
        return tag
    }
}

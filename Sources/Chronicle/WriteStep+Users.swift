import ChronicleTodoDomain
import ChronicleLog
import Foundation
import UUIDText

extension WriteStep {
    /// Creates a user. The name is trimmed; it must be 1…200 characters, the age 0…150.
    /// - throws: ``ChronicleError/rejected(_:)`` with the broken rule.
    @discardableResult
    nonisolated(nonsending) public func createUser(name: String, age: Int) async throws -> User {
        try ChronicleError.mapping {
            let event = try UserCommands.create(id: UUIDv7.make(), name: name, age: age)
            stage(event, readAt: 0)
            return try user(event.entityID).aggregate.user!
        }
    }

    /// Changes a user's name and/or age.
    @discardableResult
    nonisolated(nonsending) public func updateUser(_ id: UUID, name: String? = nil, age: Int? = nil) async throws -> User {
        try ChronicleError.mapping {
            var (aggregate, version) = try user(id)
            let event = try UserCommands.update(aggregate, id: id, name: name, age: age)
            stage(event, readAt: version)
            aggregate.apply(event)
            return aggregate.user!
        }
    }

    /// Deletes a user and, in the same batch, each of the user's live todos.
    ///
    /// The batch is conditioned on the user's todos as read: a todo given to the user by
    /// any process after the read makes the append conflict, and the store decides again.
    nonisolated(nonsending) public func deleteUser(_ id: UUID) async throws {
        try await ChronicleError.mapping {
            // The todos-by-user index must include every todo appended up to `read`.
            let read = try store.log.head()
            try await store.projections.wait(until: read)
            let (aggregate, version) = try user(id)
            var todos: [(Todo, UInt64)] = []
            // The models' todos of the user, then those created in this step.
            var candidates = try store.models.todos(user: id).map(\.id)
            candidates += stagedTodoIDs.filter { !candidates.contains($0) }
            for candidate in candidates {
                let (todo, todoVersion) = try todo(candidate, ownerIsLive: aggregate.isLive)
                if todo.isLive, let live = todo.todo, live.userId == id { todos.append((live, todoVersion)) }
            }
            let events = try UserCommands.delete(aggregate, id: id, liveTodosOfUser: todos.map(\.0))
            let versions = Dictionary(todos.map { (DomainEvent.todoStream($0.0.id), $0.1) }, uniquingKeysWith: { a, _ in a })
            for event in events {
                stage(event, readAt: event.stream == DomainEvent.userStream(id) ? version : versions[event.stream] ?? 0)
            }
            add(.unchanged(ConsistencyKeys.todosOfUser(id.lowercasedString), since: read))
        }
    }
}

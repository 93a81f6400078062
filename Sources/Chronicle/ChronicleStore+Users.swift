import Domain
import EventLog
import Foundation
import UUIDText

extension ChronicleStore {
    /// Creates a user. The name is trimmed; it must be 1…200 characters, the age 0…150.
    /// - throws: ``ChronicleError/rejected(_:)`` with the broken rule.
    @discardableResult
    public func createUser(name: String, age: Int) async throws -> User {
        let id = UUIDv7.make()
        var created: User?
        try await execute {
            let event = try UserCommands.create(id: id, name: name, age: age)
            var aggregate = UserAggregate()
            aggregate.apply(event)
            created = aggregate.user
            return Decision(streams: [StreamAppend(stream: event.stream, expected: .noStream, events: [NewEvent(event)])])
        }
        return created!
    }

    /// Changes a user's name and/or age.
    @discardableResult
    public func updateUser(_ id: UUID, name: String? = nil, age: Int? = nil) async throws -> User {
        var updated: User?
        try await execute {
            var (aggregate, version) = try loader.user(id)
            let event = try UserCommands.update(aggregate, id: id, name: name, age: age)
            aggregate.apply(event)
            updated = aggregate.user
            return Decision(streams: [StreamAppend(stream: event.stream, expected: .at(version), events: [NewEvent(event)])])
        }
        return updated!
    }

    /// Deletes a user and, in the same atomic batch, each of the user's live todos.
    ///
    /// The batch is conditioned on the user's todos as read: a todo given to the user by
    /// any process after the read makes the append conflict, and the command decides again.
    public func deleteUser(_ id: UUID) async throws {
        try await execute {
            // The todos-by-user index must include every todo appended up to `read`.
            let read = try log.head()
            try await projections.wait(until: read)
            let (aggregate, version) = try loader.user(id)
            var todos: [(Todo, UInt64)] = []
            for candidate in try models.todos(user: id) {
                let (todo, todoVersion) = try loader.todo(candidate.id, ownerIsLive: aggregate.isLive)
                if todo.isLive, let live = todo.todo { todos.append((live, todoVersion)) }
            }
            let events = try UserCommands.delete(aggregate, id: id, liveTodosOfUser: todos.map(\.0))
            let versions = Dictionary(todos.map { (DomainEvent.todoStream($0.0.id), $0.1) }, uniquingKeysWith: { a, _ in a })
            let streams = events.map { event in
                let expected: ExpectedVersion = event.stream == DomainEvent.userStream(id) ? .at(version) : .at(versions[event.stream] ?? 0)
                return StreamAppend(stream: event.stream, expected: expected, events: [NewEvent(event)])
            }
            return Decision(streams: streams, keys: [.unchanged(ConsistencyKeys.todosOfUser(id.lowercasedString), since: read)])
        }
    }

    /// The user, or `nil` when unknown or deleted.
    public func user(_ id: UUID) async throws -> User? {
        try await readYourWrites()
        return try models.user(id)
    }

    /// Every live user, by name then id.
    public func users() async throws -> [User] {
        try await readYourWrites()
        return try models.users()
    }
}

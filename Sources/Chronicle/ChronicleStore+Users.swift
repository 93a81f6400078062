import ChronicleTodoDomain
import Foundation

extension ChronicleStore {
    /// Creates a user. The name is trimmed; it must be 1…200 characters, the age 0…150.
    /// - throws: ``ChronicleError/rejected(_:)`` with the broken rule.
    @discardableResult
    public func createUser(name: String, age: Int) async throws -> User {
        try await write { step in try await step.createUser(name: name, age: age) }.value
    }

    /// Changes a user's name and/or age.
    @discardableResult
    public func updateUser(_ id: UUID, name: String? = nil, age: Int? = nil) async throws -> User {
        try await write { step in try await step.updateUser(id, name: name, age: age) }.value
    }

    /// Deletes a user and, in the same atomic batch, each of the user's live todos.
    ///
    /// The batch is conditioned on the user's todos as read: a todo given to the user by
    /// any process after the read makes the append conflict, and the command decides again.
    public func deleteUser(_ id: UUID) async throws {
        _ = try await write { step in try await step.deleteUser(id) }
    }

    /// The user, or `nil` when unknown or deleted.
    public func user(_ id: UUID) async throws -> User? {
        try await readingTodoApp { states in try states.shown(User.self, id: id) }
    }

    /// Every live user, by name then id.
    ///
    /// Names compare as Unicode scalars of their NFC form, so canonically equivalent
    /// spellings (`é` and `e` + U+0301) sort together.
    public func users() async throws -> [User] {
        try await readingTodoApp { states in TodoAppOrder.byName(try states.shown(User.self), name: \.name) }
    }
}

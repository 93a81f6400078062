import ChronicleTodoDomain
import Foundation
import ChronicleLog
import UUIDText

extension WriteStep {
    /// Creates a user. The name is trimmed; it must be 1…200 characters, the age 0…150.
    /// - throws: ``ChronicleError/rejected(_:)`` with the broken rule.
    @discardableResult
    nonisolated(nonsending) public func createUser(name: String, age: Int) async throws -> User {
        let name = try ChronicleError.mapping { try TodoAppInput.userName(name) }
        let age = try ChronicleError.mapping { try TodoAppInput.age(age) }
        let id = UUIDv7.make()
        try decide("User", id, .create(["name": .text(name), "age": .integer(age)]))
        return try user(id)
    }

    /// Changes a user's name and/or age.
    @discardableResult
    nonisolated(nonsending) public func updateUser(_ id: UUID, name: String? = nil, age: Int? = nil) async throws -> User {
        guard name != nil || age != nil else { throw ChronicleError.rejected(.nothingToUpdate) }
        var values: [String: ChronicleModel.FieldValue] = [:]
        if let name { values["name"] = .text(try ChronicleError.mapping { try TodoAppInput.userName(name) }) }
        if let age { values["age"] = .integer(try ChronicleError.mapping { try TodoAppInput.age(age) }) }
        try decide("User", id, .update(values))
        return try user(id)
    }

    /// Deletes a user and, in the same batch, each of the user's live todos.
    ///
    /// The batch is conditioned on the user's todos as read: a todo given to the user by
    /// any process after the read makes the append conflict, and the store decides again.
    nonisolated(nonsending) public func deleteUser(_ id: UUID) async throws {
        try decide("User", id, .delete)
    }
}

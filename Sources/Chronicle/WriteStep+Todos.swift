import ChronicleTodoDomain
import Foundation
import ChronicleLog
import UUIDText

extension WriteStep {
    /// Creates a todo. `deadline` is a calendar day `YYYY-MM-DD`; `userId`, when given,
    /// must name a live user (checked atomically with the append).
    @discardableResult
    nonisolated(nonsending) public func createTodo(title: String, deadline: String, userId: UUID? = nil, memo: String? = nil) async throws -> Todo {
        var values: [String: ChronicleModel.FieldValue] = [
            "title": .text(try ChronicleError.mapping { try TodoAppInput.title(title) }),
            "deadline": .text(try ChronicleError.mapping { try TodoAppInput.deadline(deadline) }),
        ]
        if let userId { values["userId"] = .text(userId.lowercasedString) }
        if let memo { values["memo"] = .text(memo) }
        let id = UUIDv7.make()
        try decide("Todo", id, .create(values))
        return try todo(id)
    }

    /// Changes a todo's title, deadline and/or memo (a new deadline moves it between days;
    /// an empty memo removes it).
    @discardableResult
    nonisolated(nonsending) public func updateTodo(_ id: UUID, title: String? = nil, deadline: String? = nil, memo: String? = nil) async throws -> Todo {
        guard title != nil || deadline != nil || memo != nil else { throw ChronicleError.rejected(.nothingToUpdate) }
        var values: [String: ChronicleModel.FieldValue] = [:]
        if let title { values["title"] = .text(try ChronicleError.mapping { try TodoAppInput.title(title) }) }
        if let deadline { values["deadline"] = .text(try ChronicleError.mapping { try TodoAppInput.deadline(deadline) }) }
        if let memo { values["memo"] = .text(memo) }
        try decide("Todo", id, .update(values))
        return try todo(id)
    }

    /// Marks a todo completed; completing a completed todo is rejected.
    @discardableResult
    nonisolated(nonsending) public func completeTodo(_ id: UUID) async throws -> Todo {
        try decide("Todo", id, .update(["isCompleted": .boolean(true)]))
        return try todo(id)
    }

    /// Marks a completed todo open again.
    @discardableResult
    nonisolated(nonsending) public func reopenTodo(_ id: UUID) async throws -> Todo {
        try decide("Todo", id, .update(["isCompleted": .boolean(false)]))
        return try todo(id)
    }

    /// Deletes a todo.
    nonisolated(nonsending) public func deleteTodo(_ id: UUID) async throws {
        try decide("Todo", id, .delete)
    }

    /// Tags a todo; the tag must be live, and stays so until the append commits.
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.alreadyTagged(todo:tag:)`,
    ///   `DomainError.unknownTag(_:)`, `DomainError.tagDeleted(_:)`, or the todo's rejections.
    @discardableResult
    nonisolated(nonsending) public func tagTodo(_ todoID: UUID, tag tagID: UUID) async throws -> Todo {
        try decide("Todo", todoID, .add(field: "tags", member: tagID))
        return try todo(todoID)
    }

    /// Removes a live tag from a todo.
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.notTagged(todo:tag:)`,
    ///   `DomainError.tagDeleted(_:)`, `DomainError.unknownTag(_:)` or the todo's rejections.
    @discardableResult
    nonisolated(nonsending) public func untagTodo(_ todoID: UUID, tag tagID: UUID) async throws -> Todo {
        try decide("Todo", todoID, .remove(field: "tags", member: tagID))
        return try todo(todoID)
    }
}

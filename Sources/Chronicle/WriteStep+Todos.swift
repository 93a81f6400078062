import ChronicleTodoDomain
import ChronicleLog
import Foundation
import UUIDText

extension WriteStep {
    /// Creates a todo. `deadline` is a calendar day `YYYY-MM-DD`; `userId`, when given,
    /// must name a live user (checked atomically with the append).
    @discardableResult
    nonisolated(nonsending) public func createTodo(title: String, deadline: String, userId: UUID? = nil, memo: String? = nil) async throws -> Todo {
        try ChronicleError.mapping {
            var owner: (aggregate: UserAggregate, version: UInt64)?
            if let userId { owner = try user(userId) }
            let event = try TodoCommands.create(id: UUIDv7.make(), title: title, deadline: deadline, userId: userId,
                                                owner: owner?.aggregate, memo: memo)
            stage(event, readAt: 0)
            if let userId, let owner {
                // No event on the user's stream, only a check: the owner must not change meanwhile;
                // and a deletion of the owner that read its todos before this one must conflict.
                require(DomainEvent.userStream(userId), readAt: owner.version)
                add(.touch(ConsistencyKeys.todosOfUser(userId.lowercasedString)))
            }
            return try todo(event.entityID, ownerIsLive: true).aggregate.todo!
        }
    }

    /// Changes a todo's title, deadline and/or memo (a new deadline moves it between days).
    @discardableResult
    nonisolated(nonsending) public func updateTodo(_ id: UUID, title: String? = nil, deadline: String? = nil, memo: String? = nil) async throws -> Todo {
        try changeTodo(id) { aggregate throws(DomainError) in
            try TodoCommands.update(aggregate, id: id, title: title, deadline: deadline, memo: memo)
        }
    }

    /// Marks a todo completed; completing a completed todo is rejected.
    @discardableResult
    nonisolated(nonsending) public func completeTodo(_ id: UUID) async throws -> Todo {
        try changeTodo(id) { aggregate throws(DomainError) in try TodoCommands.complete(aggregate, id: id) }
    }

    /// Marks a completed todo open again.
    @discardableResult
    nonisolated(nonsending) public func reopenTodo(_ id: UUID) async throws -> Todo {
        try changeTodo(id) { aggregate throws(DomainError) in try TodoCommands.reopen(aggregate, id: id) }
    }

    /// Deletes a todo.
    nonisolated(nonsending) public func deleteTodo(_ id: UUID) async throws {
        _ = try changeTodo(id) { aggregate throws(DomainError) in try TodoCommands.delete(aggregate, id: id) }
    }

    /// Tags a todo; the tag must be live, and stays so until the append commits.
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.alreadyTagged(todo:tag:)`,
    ///   `DomainError.unknownTag(_:)`, `DomainError.tagDeleted(_:)`, or the todo's rejections.
    @discardableResult
    nonisolated(nonsending) public func tagTodo(_ todoID: UUID, tag tagID: UUID) async throws -> Todo {
        try changeTags(of: todoID, tag: tagID) { todo, tag throws(DomainError) in
            try TodoCommands.tag(todo, id: todoID, tag: tag, tagId: tagID)
        }
    }

    /// Removes a live tag from a todo.
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.notTagged(todo:tag:)`,
    ///   `DomainError.tagDeleted(_:)`, `DomainError.unknownTag(_:)` or the todo's rejections.
    @discardableResult
    nonisolated(nonsending) public func untagTodo(_ todoID: UUID, tag tagID: UUID) async throws -> Todo {
        try changeTags(of: todoID, tag: tagID) { todo, tag throws(DomainError) in
            try TodoCommands.untag(todo, id: todoID, tag: tag, tagId: tagID)
        }
    }

    private func changeTodo(_ id: UUID, _ decide: (TodoAggregate) throws(DomainError) -> DomainEvent) throws(ChronicleError) -> Todo {
        try ChronicleError.mapping {
            var (aggregate, version) = try todo(id)
            let event = try decide(aggregate)
            stage(event, readAt: version)
            aggregate.apply(event)
            return try liveTagged(aggregate)!
        }
    }

    /// Decides a tagging or untagging on the todo and the tag as read; the append requires
    /// both unchanged (the tag's stream only as a check: it must not be deleted meanwhile).
    private func changeTags(of todoID: UUID, tag tagID: UUID,
                            _ decide: (TodoAggregate, TagAggregate) throws(DomainError) -> DomainEvent) throws(ChronicleError) -> Todo {
        try ChronicleError.mapping {
            var (todo, version) = try todo(todoID)
            let (tag, tagVersion) = try tag(tagID)
            let event = try decide(todo, tag)
            stage(event, readAt: version)
            require(DomainEvent.tagStream(tagID), readAt: tagVersion)
            todo.apply(event)
            return try liveTagged(todo)!
        }
    }
}

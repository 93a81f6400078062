import ChronicleTodoDomain
import Foundation

extension ChronicleStore {
    /// Creates a todo. `deadline` is a calendar day `YYYY-MM-DD`; `userId`, when given,
    /// must name a live user (checked atomically with the append).
    @discardableResult
    public func createTodo(title: String, deadline: String, userId: UUID? = nil, memo: String? = nil) async throws -> Todo {
        try await write { step in try await step.createTodo(title: title, deadline: deadline, userId: userId, memo: memo) }.value
    }

    /// Changes a todo's title, deadline and/or memo (a new deadline moves it between days).
    @discardableResult
    public func updateTodo(_ id: UUID, title: String? = nil, deadline: String? = nil, memo: String? = nil) async throws -> Todo {
        try await write { step in try await step.updateTodo(id, title: title, deadline: deadline, memo: memo) }.value
    }

    /// Marks a todo completed; completing a completed todo is rejected.
    @discardableResult
    public func completeTodo(_ id: UUID) async throws -> Todo {
        try await write { step in try await step.completeTodo(id) }.value
    }

    /// Marks a completed todo open again.
    @discardableResult
    public func reopenTodo(_ id: UUID) async throws -> Todo {
        try await write { step in try await step.reopenTodo(id) }.value
    }

    /// Deletes a todo.
    public func deleteTodo(_ id: UUID) async throws {
        _ = try await write { step in try await step.deleteTodo(id) }
    }

    /// The todo, or `nil` when unknown or deleted.
    public func todo(_ id: UUID) async throws -> Todo? {
        try await ChronicleError.mapping {
            try await readYourWrites()
            return try models.todo(id)
        }
    }

    /// Live todos, optionally of one day, one user and/or one tag, by deadline then id.
    public func todos(on day: String? = nil, user: UUID? = nil, tag: UUID? = nil) async throws -> [Todo] {
        let day = try day.map { text throws(ChronicleError) in try Self.day(text) }
        return try await ChronicleError.mapping {
            try await readYourWrites()
            return try models.todos(on: day, user: user, tag: tag)
        }
    }

    /// Daily stats (days with at least one live todo), by date.
    public func stats(from: String? = nil, to: String? = nil) async throws -> [DailyStat] {
        let from = try from.map { text throws(ChronicleError) in try Self.day(text) }
        let to = try to.map { text throws(ChronicleError) in try Self.day(text) }
        return try await ChronicleError.mapping {
            try await readYourWrites()
            return try models.stats(from: from, to: to)
        }
    }

    private static func day(_ text: String) throws(ChronicleError) -> CalendarDay {
        do { return try CalendarDay(parsing: text) } catch { throw .rejected(error) }
    }
}

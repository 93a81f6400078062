import ChronicleSchema
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

    /// The todo, or `nil` when unknown, deleted or hidden (its user deleted); its `tags` are
    /// its live tags.
    public func todo(_ id: UUID) async throws -> Todo? {
        try await readingTodoApp { states in try states.shown(Todo.self, id: id) }
    }

    /// Live todos, optionally of one day, one user and/or one tag, by deadline then id.
    ///
    /// A day is read through the deadlines' index, a tag through its todos', a user through
    /// the user's: only the todos returned are read. A tag that is not live shows on no todo.
    public func todos(on day: String? = nil, user: UUID? = nil, tag: UUID? = nil) async throws -> [Todo] {
        let day = try day.map { text throws(ChronicleError) in try Self.day(text) }
        return try await readingTodoApp { states in
            var todos: [Todo]
            if let day {
                let value = ChronicleModel.FieldValue.text(day.description)
                todos = try states.shown(Todo.self, where: "deadline", from: value, through: value)
            } else if let tag {
                todos = try states.shown(Todo.self, where: "tags", from: .id(tag), through: .id(tag))
            } else if let user {
                todos = try states.shown(Todo.self, where: "userId", from: .id(user), through: .id(user))
            } else {
                todos = try states.shown(Todo.self)
            }
            if let user { todos.removeAll { $0.userId != user } }
            // The set's index lists a todo under a tag it holds; it shows only live ones.
            if let tag { todos.removeAll { !$0.tags.contains(tag) } }
            // By day, the index gave them by deadline, then id already.
            if day == nil { TodoAppOrder.sortByDeadline(&todos) }
            return todos
        }
    }

    /// Daily stats (days with at least one live todo), by date: the rows of the model's
    /// `DailyStat` aggregate, kept up as todos change.
    public func stats(from: String? = nil, to: String? = nil) async throws -> [DailyStat] {
        let from = try from.map { text throws(ChronicleError) in try Self.day(text) }
        let to = try to.map { text throws(ChronicleError) in try Self.day(text) }
        return try await readingTodoApp { states in
            try states.rows(of: "DailyStat", from: from.map { .text($0.description) }, through: to.map { .text($0.description) })
                .map { row in
                    guard case .text(let text) = row.key, let date = try? CalendarDay(parsing: text),
                          case .integer(let total)? = row.measures["total"], case .integer(let completed)? = row.measures["completed"] else {
                        throw ChronicleError.damaged("a stored DailyStat row (\(row.key)) is not a day's counts: rebuild the entities ('chronicle rebuild --projection entities')")
                    }
                    return DailyStat(date: date, total: total, completed: completed)
                }
        }
    }

    private static func day(_ text: String) throws(ChronicleError) -> CalendarDay {
        do { return try CalendarDay(parsing: text) } catch { throw .rejected(error) }
    }
}

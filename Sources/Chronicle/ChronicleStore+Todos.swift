import Domain
import EventLog
import Foundation
import UUIDText

extension ChronicleStore {
    /// Creates a todo. `deadline` is a calendar day `YYYY-MM-DD`; `userId`, when given,
    /// must name a live user (checked atomically with the append).
    @discardableResult
    public func createTodo(title: String, deadline: String, userId: UUID? = nil, memo: String? = nil) async throws -> Todo {
        let id = UUIDv7.make()
        var created: Todo?
        try await execute {
            var owner: (aggregate: UserAggregate, version: UInt64)?
            if let userId { owner = try loader.user(userId) }
            let event = try TodoCommands.create(id: id, title: title, deadline: deadline, userId: userId,
                                                owner: owner?.aggregate, memo: memo)
            var aggregate = TodoAggregate()
            aggregate.apply(event)
            created = aggregate.todo
            var decision = Decision(streams: [StreamAppend(stream: event.stream, expected: .noStream, events: [NewEvent(event)])])
            if let userId, let owner {
                // No event on the user's stream, only a check: the owner must not change meanwhile;
                // and a deletion of the owner that read its todos before this one must conflict.
                decision.streams.append(StreamAppend(stream: DomainEvent.userStream(userId), expected: .at(owner.version), events: []))
                decision.keys.append(.touch(ConsistencyKeys.todosOfUser(userId.lowercasedString)))
            }
            return decision
        }
        return created!
    }

    /// Changes a todo's title, deadline and/or memo (a new deadline moves it between days).
    @discardableResult
    public func updateTodo(_ id: UUID, title: String? = nil, deadline: String? = nil, memo: String? = nil) async throws -> Todo {
        try await changeTodo(id) { aggregate throws(DomainError) in
            try TodoCommands.update(aggregate, id: id, title: title, deadline: deadline, memo: memo)
        }
    }

    /// Marks a todo completed; completing a completed todo is rejected.
    @discardableResult
    public func completeTodo(_ id: UUID) async throws -> Todo {
        try await changeTodo(id) { aggregate throws(DomainError) in try TodoCommands.complete(aggregate, id: id) }
    }

    /// Marks a completed todo open again.
    @discardableResult
    public func reopenTodo(_ id: UUID) async throws -> Todo {
        try await changeTodo(id) { aggregate throws(DomainError) in try TodoCommands.reopen(aggregate, id: id) }
    }

    /// Deletes a todo.
    public func deleteTodo(_ id: UUID) async throws {
        _ = try await changeTodo(id) { aggregate throws(DomainError) in try TodoCommands.delete(aggregate, id: id) }
    }

    /// The todo, or `nil` when unknown or deleted.
    public func todo(_ id: UUID) async throws -> Todo? {
        try await readYourWrites()
        return try models.todo(id)
    }

    /// Live todos, optionally of one day, one user and/or one tag, by deadline then id.
    public func todos(on day: String? = nil, user: UUID? = nil, tag: UUID? = nil) async throws -> [Todo] {
        let day = try day.map { text in try Self.day(text) }
        try await readYourWrites()
        return try models.todos(on: day, user: user, tag: tag)
    }

    /// Daily stats (days with at least one live todo), by date.
    public func stats(from: String? = nil, to: String? = nil) async throws -> [DailyStat] {
        let from = try from.map { text in try Self.day(text) }
        let to = try to.map { text in try Self.day(text) }
        try await readYourWrites()
        return try models.stats(from: from, to: to)
    }

    private static func day(_ text: String) throws -> CalendarDay {
        do { return try CalendarDay(parsing: text) } catch { throw ChronicleError.rejected(error) }
    }

    private func changeTodo(_ id: UUID, _ decide: @escaping (TodoAggregate) throws(DomainError) -> DomainEvent) async throws -> Todo {
        var result: Todo?
        try await execute {
            var (aggregate, version) = try loader.todo(id)
            let event = try decide(aggregate)
            aggregate.apply(event)
            result = try liveTagged(aggregate)
            return Decision(streams: [StreamAppend(stream: event.stream, expected: .at(version), events: [NewEvent(event)])])
        }
        return result!
    }
}

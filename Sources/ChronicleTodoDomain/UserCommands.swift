import Foundation

/// Decides the events for user commands, or why a command is rejected.
///
/// Pure functions: they read the aggregate they are given and return events
/// for the caller to append atomically; nothing is mutated, so a rejected
/// command appends nothing. Argument checks come before state checks.
///
/// ```swift
/// let created = try UserCommands.create(id: UUID(), name: "  Ada ", age: 36)
/// // .userCreated(id: …, name: "Ada", age: 36)
/// try UserCommands.create(id: UUID(), name: "Ada", age: 151)   // throws .ageOutOfRange(151)
/// ```
public enum UserCommands {
    /// Decides `UserCreated`.
    ///
    /// Name is trimmed (whitespace/newlines) before validation and stored trimmed;
    /// non-empty, at most 200 Characters; age 0...150.
    /// - throws: ``DomainError/emptyName``, ``DomainError/nameTooLong(_:)``,
    ///   ``DomainError/ageOutOfRange(_:)``.
    public static func create(id: UUID, name: String, age: Int) throws(DomainError) -> DomainEvent {
        let name = try validName(name)
        try validateAge(age)
        return .userCreated(id: id, name: name, age: age)
    }

    /// Decides `UserUpdated` carrying only the given fields.
    ///
    /// At least one of name/age (else nothingToUpdate). Rejects unknown (unknownUser)
    /// and deleted (userDeleted). Same validation as ``create(id:name:age:)``.
    public static func update(
        _ current: UserAggregate, id: UUID, name: String?, age: Int?
    ) throws(DomainError) -> DomainEvent {
        guard name != nil || age != nil else { throw .nothingToUpdate }
        let name = try name.map { (name) throws(DomainError) in try validName(name) }
        if let age { try validateAge(age) }
        try current.requireLive(id: id)
        return .userUpdated(id: id, name: name, age: age)
    }

    /// Decides the cascade: `UserDeleted` followed by one `TodoDeleted` per todo of the user.
    ///
    /// The caller passes the user's live todos (`liveTodosOfUser`); todos owned by
    /// someone else and repeated ids are skipped, the rest keep the caller's order.
    /// All returned events belong in one atomic append.
    /// - throws: ``DomainError/unknownUser(_:)``, ``DomainError/userDeleted(_:)``.
    public static func delete(
        _ current: UserAggregate, id: UUID, liveTodosOfUser: [Todo]
    ) throws(DomainError) -> [DomainEvent] {
        try current.requireLive(id: id)
        var events: [DomainEvent] = [.userDeleted(id: id)]
        var seen: Set<UUID> = []
        for todo in liveTodosOfUser where todo.userId == id && seen.insert(todo.id).inserted {
            events.append(.todoDeleted(id: todo.id))
        }
        return events
    }

    // MARK: - Validation

    private static func validName(_ raw: String) throws(DomainError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .emptyName }
        let count = name.count
        guard count <= User.maxNameLength else { throw .nameTooLong(count) }
        return name
    }

    private static func validateAge(_ age: Int) throws(DomainError) {
        guard User.ageRange.contains(age) else { throw .ageOutOfRange(age) }
    }
}

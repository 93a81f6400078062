import ChronicleSchema
import ChronicleTodoDomain
import Foundation
import ChronicleProjections

/// A read an app shows, to observe with ``ChronicleStore/observe(_:)``: its value now, then
/// a fresh value after every change to it.
///
/// ```swift
/// for try await todos in store.observe(.todos(on: "2026-12-01")) {
///     self.rows = todos     // the current list first, then each new one
/// }
/// ```
public struct StoreQuery<Value: Sendable & Equatable>: Sendable {
    let read: @Sendable (ChronicleStore) async throws -> Value
    /// Whether a change may alter the value (when unsure, yes: an equal value is not delivered).
    let mayChange: @Sendable (ReadModelChange) -> Bool

    /// A query of your own over the store's reads; `mayChange` narrows which changes make
    /// it read again (every change by default). Values equal to the last delivered are skipped.
    ///
    /// ```swift
    /// let openCount = StoreQuery { store in try await store.todos().filter { !$0.isCompleted }.count }
    /// ```
    public init(read: @escaping @Sendable (ChronicleStore) async throws -> Value,
                mayChange: @escaping @Sendable (ReadModelChange) -> Bool = { _ in true }) {
        self.read = read
        self.mayChange = mayChange
    }
}

extension StoreQuery where Value == [Todo] {
    /// Live todos, optionally of one day (`YYYY-MM-DD`), one user and/or one tag, as
    /// ``ChronicleStore/todos(on:user:tag:)`` reads them.
    public static func todos(on day: String? = nil, user: UUID? = nil, tag: UUID? = nil) -> Self {
        StoreQuery(read: { store in try await store.todos(on: day, user: user, tag: tag) }, mayChange: Changes.ofTodos)
    }
}

extension StoreQuery where Value == Todo? {
    /// One todo (`nil` while unknown or deleted).
    public static func todo(_ id: UUID) -> Self {
        StoreQuery(read: { store in try await store.todo(id) }, mayChange: Changes.ofTodos)
    }
}

extension StoreQuery where Value == [User] {
    /// Live users, as ``ChronicleStore/users()`` reads them.
    public static var users: Self {
        StoreQuery(read: { store in try await store.users() }, mayChange: Changes.ofUsers)
    }
}

extension StoreQuery where Value == User? {
    /// One user (`nil` while unknown or deleted).
    public static func user(_ id: UUID) -> Self {
        StoreQuery(read: { store in try await store.user(id) }, mayChange: Changes.ofUsers)
    }
}

extension StoreQuery where Value == [Tag] {
    /// Live tags, as ``ChronicleStore/tags()`` reads them.
    public static var tags: Self {
        StoreQuery(read: { store in try await store.tags() }, mayChange: Changes.ofTags)
    }
}

extension StoreQuery where Value == [DailyStat] {
    /// Daily stats of a range of days (`YYYY-MM-DD`, both ends included), as
    /// ``ChronicleStore/stats(from:to:)`` reads them.
    public static func stats(from: String? = nil, to: String? = nil) -> Self {
        StoreQuery(read: { store in try await store.stats(from: from, to: to) }, mayChange: Changes.ofStats)
    }
}

extension StoreQuery where Value == [ChronicleModel.EntityState] {
    /// The shown entities of a declared model's `entity`, as ``ChronicleStore/entities(_:)->[ChronicleModel.EntityState]``
    /// reads them.
    ///
    /// ```swift
    /// for try await notes in store.observe(.entities("Note")) { show(notes) }
    /// ```
    public static func entities(_ entity: String) -> Self {
        StoreQuery(read: { store in try await store.entities(entity) }, mayChange: Changes.ofEntities)
    }
}

extension StoreQuery where Value == [ChronicleModel.EntityState] {
    /// The shown entities of `entity` whose `field` holds a value in a range, as
    /// ``ChronicleStore/entities(_:where:from:through:)->[ChronicleModel.EntityState]`` reads them.
    public static func entities(_ entity: String, where field: String, from lower: ChronicleModel.FieldValue? = nil,
                                through upper: ChronicleModel.FieldValue? = nil) -> Self {
        StoreQuery(read: { store in try await store.entities(entity, where: field, from: lower, through: upper) },
                   mayChange: Changes.ofEntities)
    }
}

extension StoreQuery where Value == [ChronicleModel.AggregateRow] {
    /// An aggregate's rows in a range of keys, as ``ChronicleStore/rows(_:from:through:)`` reads them.
    public static func rows(_ aggregate: String, from lower: ChronicleModel.FieldValue? = nil,
                            through upper: ChronicleModel.FieldValue? = nil) -> Self {
        StoreQuery(read: { store in try await store.rows(aggregate, from: lower, through: upper) }, mayChange: Changes.ofEntities)
    }
}

extension StoreQuery where Value == ChronicleModel.EntityState? {
    /// One entity of a declared model (nil while unknown, deleted or hidden by its parent).
    public static func entity(_ entity: String, id: UUID) -> Self {
        StoreQuery(read: { store in try await store.entity(entity, id: id) }, mayChange: Changes.ofEntities)
    }
}

/// Which changes may alter each kind of query.
private enum Changes {
    /// A todo shows its live tags; a user's deletion hides its todos.
    @Sendable static func ofTodos(_ change: ReadModelChange) -> Bool {
        names(change, ["Todo", "Tag", "User"])
    }

    @Sendable static func ofUsers(_ change: ReadModelChange) -> Bool {
        names(change, ["User"])
    }

    @Sendable static func ofTags(_ change: ReadModelChange) -> Bool {
        names(change, ["Tag"])
    }

    /// A day counts the todos shown: a user's deletion hides its todos.
    @Sendable static func ofStats(_ change: ReadModelChange) -> Bool {
        names(change, ["Todo", "User"])
    }

    /// What an entity shows depends on other entities (its parents, its sets' members, the
    /// values its unique fields collide with): any entity's change may alter it.
    @Sendable static func ofEntities(_ change: ReadModelChange) -> Bool {
        true
    }

    /// Whether `change` is of an entity among `entities`, or a re-query of every one.
    private static func names(_ change: ReadModelChange, _ entities: [String]) -> Bool {
        switch change {
        case .entity(let entity, _, _): entities.contains(entity)
        case .entitiesInvalidated: true
        }
    }
}

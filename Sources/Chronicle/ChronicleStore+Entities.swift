import ChronicleSchema
import ChronicleLog
import Foundation
import ChronicleProjections

extension ChronicleStore {
    /// Creates an entity of the store's model with the fields given (the others take their
    /// defaults), checked by the model's rules; returns it as stored.
    ///
    /// ```swift
    /// let folder = try await store.create("Folder", ["name": .text("Work")])
    /// let note = try await store.create("Note", ["title": .text("Plan"), "folderId": .text(folder.id.uuidString)])
    /// ```
    /// - throws: ``ChronicleError/refused(_:)`` naming the field and the rule it breaks (a
    ///   unique value taken, a parent not live, …), ``ChronicleError/conflict(_:)`` after too
    ///   many concurrent changes. Nothing is appended then.
    @discardableResult
    public func create(_ entity: String, _ values: [String: ChronicleModel.FieldValue], id: UUID = UUID()) async throws
        -> ChronicleModel.EntityState {
        try await perform(ChronicleModel.Command(entity: entity, id: id, action: .create(values)))
        return try await requireEntity(entity, id)
    }

    /// Writes the fields given over entity `id` (a set given whole is changed member by member).
    /// - throws: as ``create(_:_:id:)``, and when the entity is not live.
    @discardableResult
    public func update(_ entity: String, _ id: UUID, _ values: [String: ChronicleModel.FieldValue]) async throws
        -> ChronicleModel.EntityState {
        try await perform(ChronicleModel.Command(entity: entity, id: id, action: .update(values)))
        return try await requireEntity(entity, id)
    }

    /// Deletes entity `id`, and the children its deletion deletes (`ChronicleModel.ParentDeletion`).
    /// - throws: as ``create(_:_:id:)``, and when the entity is not live or a child refuses it.
    public func delete(_ entity: String, _ id: UUID) async throws {
        try await perform(ChronicleModel.Command(entity: entity, id: id, action: .delete))
    }

    /// Brings deleted entity `id` back as it was.
    /// - throws: as ``create(_:_:id:)``, and when the entity is not deleted or its unique value is taken.
    @discardableResult
    public func restore(_ entity: String, _ id: UUID) async throws -> ChronicleModel.EntityState? {
        try await perform(ChronicleModel.Command(entity: entity, id: id, action: .restore))
        return try await self.entity(entity, id: id)
    }

    /// Decides `command` by the model's rules on the entities as stored now, and appends what
    /// it decided in one batch, held against every process writing the store by the log's
    /// append keys; decides again when another writer changed what it read.
    /// - throws: ``ChronicleError/refused(_:)`` when a rule refuses it, ``ChronicleError/conflict(_:)``
    ///   after too many concurrent changes.
    public func perform(_ command: ChronicleModel.Command) async throws {
        try await perform { step in try step.perform(command) }
    }

    /// The shown entities of `entity`, by id: live, their parents shown, each set with its
    /// shown members, and unique values that collided after a merge told apart (`Work (2)`).
    /// Reads everything in the log when the call begins.
    public func entities(_ entity: String) async throws -> [ChronicleModel.EntityState] {
        try requireOpen()
        return try ChronicleError.mapping {
            try caughtUpEntityStates().shown(entity)
        }
    }

    /// Entity `id` of `entity` as ``entities(_:)->[ChronicleModel.EntityState]`` shows it; nil when it is not shown.
    public func entity(_ entity: String, id: UUID) async throws -> ChronicleModel.EntityState? {
        try requireOpen()
        return try ChronicleError.mapping {
            try caughtUpEntityStates().shown(entity, id: id)
        }
    }

    /// The shown entities of `entity` whose `field` holds `value`, by id; for a set, those
    /// whose set holds the member `value` names (notes by label, todos by tag).
    ///
    /// ```swift
    /// let inWork = try await store.entities("Note", where: "folderId", equals: .id(work.id))
    /// let urgent = try await store.entities("Note", where: "labels", equals: .id(label.id))
    /// ```
    /// - throws: ``ChronicleError/invalidInput(_:)`` for an entity or field the model does not
    ///   declare, or a set asked for anything but an id.
    public func entities(_ entity: String, where field: String, equals value: ChronicleModel.FieldValue) async throws
        -> [ChronicleModel.EntityState] {
        try await entities(entity, where: field, from: value, through: value)
    }

    /// The shown entities of `entity` whose `field` holds a value from `lower` through `upper`
    /// (nil leaves an end open), sorted by that value, then by id. Declare the field indexed
    /// (`note.index("day")`) and only the entities returned are read; otherwise every entity
    /// of its kind is (a reference or a set asked for one id reads its index, without saying).
    ///
    /// ```swift
    /// let week = try await store.entities("Note", where: "day", from: "2026-12-01", through: "2026-12-07")
    /// ```
    /// - throws: ``ChronicleError/invalidInput(_:)`` for an entity or field the model does not declare.
    public func entities(_ entity: String, where field: String, from lower: ChronicleModel.FieldValue? = nil,
                         through upper: ChronicleModel.FieldValue? = nil) async throws -> [ChronicleModel.EntityState] {
        try requireOpen()
        return try ChronicleError.mapping {
            try caughtUpEntityStates().shown(entity, where: field, from: lower, through: upper)
        }
    }

    /// The rows of the model's aggregate `name` whose key is from `lower` through `upper` (nil
    /// leaves an end open), by key: counts and sums over the shown entities of each key, stored
    /// and kept up as entities change, so only those rows are read.
    ///
    /// ```swift
    /// let week = try await store.rows("NotesPerDay", from: "2026-12-01", through: "2026-12-07")
    /// week.first?.measures["spent"]   // .text("12.5"): a sum of decimals
    /// ```
    /// - throws: ``ChronicleError/invalidInput(_:)`` for an aggregate the model does not declare.
    public func rows(_ aggregate: String, from lower: ChronicleModel.FieldValue? = nil,
                     through upper: ChronicleModel.FieldValue? = nil) async throws -> [ChronicleModel.AggregateRow] {
        try requireOpen()
        return try ChronicleError.mapping {
            try caughtUpEntityStates().rows(of: aggregate, from: lower, through: upper)
        }
    }

    /// The events in the log that this store's model cannot read, and so shows nowhere: those
    /// of another app, or of a newer version of this one (pulled from a device upgraded
    /// first: a type it does not declare, data of a newer schema version). They stay in the
    /// log and sync on; a version that reads them shows them.
    ///
    /// ```swift
    /// let unread = try await store.unreadEvents()
    /// if unread.count > 0 { banner("Update the app to see \(unread.count) changes made on your other devices") }
    /// ```
    public func unreadEvents() async throws -> UnreadEvents {
        try requireOpen()
        return try ChronicleError.mapping {
            let (count, first) = try caughtUpEntityStates().unread()
            return UnreadEvents(count: count, first: first)
        }
    }

    /// What ``unreadEvents()`` tells: how many events the model cannot read, and why not the first.
    public struct UnreadEvents: Sendable, Hashable {
        /// Events of the log the model cannot read.
        public var count: Int
        /// The first one's position and what is wrong with it, e.g. "event 12: unknown event type 'NoteArchived'".
        public var first: String?

        /// A count and the first one's problem.
        public init(count: Int, first: String?) {
            self.count = count
            self.first = first
        }
    }

    private func requireEntity(_ entity: String, _ id: UUID) async throws -> ChronicleModel.EntityState {
        guard let state = try await self.entity(entity, id: id) else {
            throw ChronicleError.refused(.init("\(entity) \(id.uuidString.lowercased()) is not shown after the write"))
        }
        return state
    }

    /// The stored entities brought up to the log's head: what every read reads. The first
    /// catch-up after an upgrade tells the store's `upgradeProgress`.
    func caughtUpEntityStates() throws -> ModelStates {
        guard let report = upgradeProgress.withLock({ report in defer { report = nil }; return report }) else {
            try entityStates.catchUp()
            return entityStates
        }
        let started = ContinuousClock.now
        try entityStates.catchUp { done, total in report(RebuildProgress(done: done, total: total, since: started)) }
        return entityStates
    }
}

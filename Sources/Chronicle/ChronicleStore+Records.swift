import ChronicleSchema
import Foundation
import ChronicleProjections

extension ChronicleStore {
    /// The shown entities of `Record.entity`, by id, each read into the app's own type
    /// (`ChronicleRecord`) where the store keeps it: no dictionary of values is built.
    ///
    /// ```swift
    /// let labels = try await store.entities(LabelRow.self)
    /// ```
    /// - throws: ``ChronicleError``, or what `Record`'s initializer threw, as it threw it.
    public func entities<Record: ChronicleRecord>(_ type: Record.Type) async throws -> [Record] {
        try await reading { states in try states.shown(Record.self) }
    }

    /// Entity `id` of `Record.entity` as `entities(_:)` reads it; nil when it is not shown.
    /// - throws: ``ChronicleError``, or what `Record`'s initializer threw.
    public func entity<Record: ChronicleRecord>(_ type: Record.Type, id: UUID) async throws -> Record? {
        try await reading { states in try states.shown(Record.self, id: id) }
    }

    /// The shown entities of `Record.entity` whose `field` holds `value`, by id, each read
    /// into a `Record`.
    /// - throws: ``ChronicleError``, or what `Record`'s initializer threw.
    public func entities<Record: ChronicleRecord>(_ type: Record.Type, where field: String,
                                                  equals value: ChronicleModel.FieldValue) async throws -> [Record] {
        try await entities(Record.self, where: field, from: value, through: value)
    }

    /// The shown entities of `Record.entity` whose `field` holds a value from `lower` through
    /// `upper` (nil leaves an end open), sorted by that value, then by id, each read into a
    /// `Record`. An indexed field reads only the entities returned.
    ///
    /// ```swift
    /// let week = try await store.entities(NoteRow.self, where: "day", from: "2026-12-01", through: "2026-12-07")
    /// ```
    /// - throws: ``ChronicleError`` (``ChronicleError/invalidInput(_:)`` for an entity or field
    ///   the model does not declare), or what `Record`'s initializer threw.
    public func entities<Record: ChronicleRecord>(_ type: Record.Type, where field: String,
                                                  from lower: ChronicleModel.FieldValue? = nil,
                                                  through upper: ChronicleModel.FieldValue? = nil) async throws -> [Record] {
        try await reading { states in try states.shown(Record.self, where: field, from: lower, through: upper) }
    }

    /// `body` on the caught-up states, for the todo app's typed reads (``todo(_:)``, ``users()``,
    /// …): a stored entity its type cannot read is damage, an error of the store's.
    func readingTodoApp<T>(_ body: (ModelStates) throws -> T) async throws -> T {
        try requireOpen()
        do {
            return try body(try caughtUpEntityStates())
        } catch let error as RecordInitializerError {
            throw ChronicleError.damaged(String(describing: error.error))
        } catch {
            throw ChronicleError(error)
        }
    }

    /// `body` on the caught-up states; an app's initializer error comes back as it was
    /// thrown, the store's own as a ``ChronicleError``.
    private func reading<T>(_ body: (ModelStates) throws -> T) async throws -> T {
        try requireOpen()
        do {
            return try body(try caughtUpEntityStates())
        } catch let error as RecordInitializerError {
            throw error.error
        } catch {
            throw ChronicleError(error)
        }
    }
}

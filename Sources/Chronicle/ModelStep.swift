import ChronicleSchema
import ChronicleLog
import Foundation
import ChronicleProjections

/// Several commands on the store's declared model, decided as one batch by
/// ``ChronicleStore``'s `perform(_:)` with a closure: each command sees what the ones before it
/// decided, and the store appends all of them or none.
///
/// ```swift
/// let note = try await store.perform { step in
///     let inbox = try step.create("Folder", ["name": "Inbox"])
///     return try step.create("Note", ["title": "Plan", "day": "2026-12-01", "folderId": .id(inbox)])
/// }
/// ```
/// The closure may run more than once (after another writer changed what it read): act on
/// the store only through the step.
public struct ModelStep {
    var step: ChronicleModel.Step<StoreReading>

    /// Creates an entity with the fields given; returns its id.
    /// - throws: ``ChronicleError/refused(_:)`` when a rule refuses it.
    @discardableResult
    public mutating func create(_ entity: String, _ values: [String: ChronicleModel.FieldValue], id: UUID = UUID()) throws -> UUID {
        try perform(ChronicleModel.Command(entity: entity, id: id, action: .create(values)))
        return id
    }

    /// Writes the fields given over entity `id`.
    /// - throws: ``ChronicleError/refused(_:)`` when a rule refuses it.
    public mutating func update(_ entity: String, _ id: UUID, _ values: [String: ChronicleModel.FieldValue]) throws {
        try perform(ChronicleModel.Command(entity: entity, id: id, action: .update(values)))
    }

    /// Deletes entity `id`, and the children its deletion deletes.
    /// - throws: ``ChronicleError/refused(_:)`` when a rule refuses it.
    public mutating func delete(_ entity: String, _ id: UUID) throws {
        try perform(ChronicleModel.Command(entity: entity, id: id, action: .delete))
    }

    /// Brings deleted entity `id` back as it was.
    /// - throws: ``ChronicleError/refused(_:)`` when a rule refuses it.
    public mutating func restore(_ entity: String, _ id: UUID) throws {
        try perform(ChronicleModel.Command(entity: entity, id: id, action: .restore))
    }

    /// Decides `command` after the step's earlier commands.
    /// - throws: ``ChronicleError/refused(_:)`` when a rule refuses it.
    public mutating func perform(_ command: ChronicleModel.Command) throws {
        do {
            try step.decide(command)
        } catch let problem as ChronicleModel.CommandProblem {
            throw ChronicleError.refused(problem)
        }
    }

    /// Entity `id` as the step leaves it so far, deleted or not (nil: none).
    public func state(of entity: String, id: UUID) throws -> ChronicleModel.EntityState? {
        try ChronicleError.mapping { try step.state(of: entity, id: id) }
    }
}

extension ChronicleStore {
    /// Runs `body`'s commands on the store's declared model as one batch: all appended, or
    /// none when one is refused or `body` throws. Returns what `body` returns.
    ///
    /// ```swift
    /// try await store.perform { step in
    ///     try step.update("Folder", work, ["name": "Office"])
    ///     try step.create("Folder", ["name": "Work"])      // the name the rename freed
    /// }
    /// ```
    /// - throws: ``ChronicleError/refused(_:)`` with the first rule broken,
    ///   ``ChronicleError/conflict(_:)`` after too many concurrent changes, or what `body` threw.
    @discardableResult
    public func perform<Value>(_ body: (inout ModelStep) throws -> Value) async throws -> Value {
        try requireOpen()
        return try await ChronicleError.mapping {
            try await appendDecided { reading in
                var step = ModelStep(step: ChronicleModel.Step(eventReader, reading: reading))
                let value = try body(&step)
                return (step.step.decision, .command(group: Self.undoGroupID), value)
            }.value
        }
    }

    /// Decides on the entities as the log holds them now (``StoreReading``) and appends the
    /// decision with its history note; when another writer changed what it read, waits a
    /// moment and decides again. A decision of no events appends nothing.
    /// Returns what was appended (nil: nothing) and the value of the decision that counted.
    ///
    /// The value comes back in the result, not through a variable the closure captures and
    /// sets: with Swift 6.3, a `nonisolated(nonsending)` caller whose async closure assigned a
    /// captured generic value crashed in `swift_task_dealloc` for some sizes of the value (a
    /// `Todo` of 88 bytes did, of 112 did not), the task's stack freed out of order.
    nonisolated(nonsending) func appendDecided<Value>(
        _ decide: (StoreReading) async throws -> (decision: ChronicleModel.Decision, note: HistoryNote, value: Value)
    ) async throws -> (appended: AppendResult?, value: Value) {
        var attempt = 0
        while true {
            attempt += 1
            let decided = try await decide(try StoreReading(log: log, states: entityStates, reader: eventReader))
            guard !decided.decision.events.isEmpty else { return (nil, decided.value) }
            do {
                let result = try await ModelAppend.append(decided.decision, to: log, note: decided.note.bytes)
                lastAppended.withLock { $0 = max($0, result.head) }
                return (result, decided.value)
            } catch ChronicleError.conflict(let detail) {
                guard attempt < Self.maxDecisions else { throw ChronicleError.conflict(detail) }
                try await Task.sleep(for: Self.backoff(afterAttempt: attempt))
            }
        }
    }
}

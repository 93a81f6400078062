import ChronicleLog
import ChronicleProjections
import Foundation

/// What ``ChronicleStore/write(_:)`` returns: the body's value and the log position the step wrote.
public struct Written<Value> {
    /// What the body returned.
    public var value: Value
    /// The position of the step's last event (wait for read models with
    /// ``ChronicleStore/waitForModels(through:)``); the log's head when the step wrote nothing.
    public var position: UInt64
}

extension Written: Sendable where Value: Sendable {}
extension Written: Equatable where Value: Equatable {}

extension ChronicleStore {
    /// Runs several commands as one atomic step: their events are appended in one batch (all
    /// or none, whichever process writes the store meanwhile), and one ``undo(steps:)``
    /// reverts them all. Returns the body's value and the position written.
    ///
    /// ```swift
    /// let written = try await store.write { step in
    ///     let trip = try await step.createTodo(title: "Plan trip", deadline: "2026-12-04")
    ///     return try await step.tagTodo(trip.id, tag: travel.id)
    /// }
    /// try await store.waitForModels(through: written.position)
    /// ```
    /// When another writer changes what the step read before it is appended, the body runs
    /// again on fresh state (see ``WriteStep``). A rule broken anywhere in the body, or an
    /// error it throws, appends nothing.
    /// - throws: ``ChronicleError/rejected(_:)`` with the first broken rule,
    ///   ``ChronicleError/conflict(_:)`` after too many concurrent changes; what the body
    ///   throws otherwise, as a ``ChronicleError``.
    nonisolated(nonsending) public func write<Value>(_ body: (WriteStep) async throws -> Value) async throws -> Written<Value> {
        try requireOpen()
        return try await ChronicleError.mapping {
            let (appended, value) = try await appendDecided { reading in
                let step = WriteStep(reader: eventReader, reading: reading)
                let value = try await body(step)
                return (step.step.decision, .command(group: Self.undoGroupID), value)
            }
            let position = try appended.flatMap { $0.positions.max() } ?? log.head()
            return Written(value: value, position: position)
        }
    }
}

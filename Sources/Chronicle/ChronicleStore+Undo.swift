import ChronicleTodoModel
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import UUIDText

extension ChronicleStore {
    /// The undo group of the commands the current task makes (``undoGroup(_:)``).
    @TaskLocal static var undoGroupID: UUID?

    /// Makes the commands `body` runs one undo step: one ``undo(steps:)`` reverts them all.
    ///
    /// Each command still appends its own batch when it runs (a failure half-way keeps the
    /// ones before). Groups nest: an inner group is part of the outer one.
    ///
    /// ```swift
    /// try await store.undoGroup {
    ///     let trip = try await store.createTodo(title: "Plan trip", deadline: "2026-12-04")
    ///     try await store.tagTodo(trip.id, tag: travel.id)
    /// }
    /// try await store.undo()   // the todo and its tag go together
    /// ```
    public func undoGroup<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        if Self.undoGroupID != nil { return try await body() }
        return try await Self.$undoGroupID.withValue(UUIDv7.make()) { try await body() }
    }

    /// Whether ``undo(steps:)`` has a step of this store to revert (false when the store cannot be read).
    public var canUndo: Bool { (try? !history().undoStack.isEmpty) ?? false }

    /// Whether ``redo(steps:)`` has an undone step to apply again (false when the store cannot be read).
    public var canRedo: Bool { (try? !history().redoStack.isEmpty) ?? false }

    /// Reverts the last `steps` commands (or undo groups) made on this store that are not
    /// undone yet, by appending compensating events in one batch; returns them.
    ///
    /// Undoing a creation deletes, a deletion restores the entity as it was (fields and
    /// tags), an update puts back the previous values, a completion reopens. The history is
    /// the store's: it survives restarts and is shared by every process on the store; pulled
    /// events are not in it. Fewer steps than asked are undone when fewer are left.
    ///
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.nothingToUndo`,
    ///   `DomainError.overtaken(stream:redo:)` when a later command (of another device, or
    ///   one here that is not undone) changed an entity of a step since, or the rule the
    ///   compensation would break (a restored tag's name taken since). Nothing is appended then.
    @discardableResult
    public func undo(steps: Int = 1) async throws -> [RecordedEvent] {
        try await ChronicleError.mapping { try await revert(steps: steps, redo: false) }
    }

    /// Applies again the last `steps` steps undone (a new command since an undo forgets them);
    /// returns the events appended. Throws as ``undo(steps:)``, with `DomainError.nothingToRedo`.
    @discardableResult
    public func redo(steps: Int = 1) async throws -> [RecordedEvent] {
        try await ChronicleError.mapping { try await revert(steps: steps, redo: true) }
    }

    func history() throws -> UndoHistory {
        try requireOpen()
        return UndoHistory(notes: try log.notes())
    }

    /// Reverts (or applies again) the last `count` steps: for each entity a step changed, the
    /// commands that put it back (``ModelRevertPlan``), decided by the model as one batch.
    private func revert(steps count: Int, redo: Bool) async throws -> [RecordedEvent] {
        guard count >= 1 else { throw ChronicleError.rejected(.invalidStepCount(count)) }
        try requireOpen()
        let appended: AppendResult?
        do {
            (appended, _) = try await appendDecided { reading in
                let read = try log.head()
                let history = try history()
                var stack = redo ? history.redoStack : history.undoStack
                guard !stack.isEmpty else { throw redo ? DomainError.nothingToRedo : DomainError.nothingToUndo }
                var plan = ModelRevertPlan(log: log, reader: eventReader, history: history, redo: redo, read: read, reading: reading)
                var parts: [HistoryNote.Part] = []
                while parts.count < count, let id = stack.popLast(), let step = history.steps[id] {
                    parts.append(HistoryNote.Part(step: id, count: UInt32(try plan.revert(step))))
                }
                return (plan.step.decision, redo ? .redo(parts) : .undo(parts), ())
            }
        } catch let problem as ChronicleModel.CommandProblem where isTodoAppModel {
            // The todo app's text for what its model refused (a restored tag's name taken since).
            throw DomainError(refusal: problem, of: nil).map(ChronicleError.rejected) ?? ChronicleError.refused(problem)
        }
        guard let appended, let first = appended.positions.min() else { return [] }
        return try log.read(after: first - 1, limit: appended.positions.count)
    }
}

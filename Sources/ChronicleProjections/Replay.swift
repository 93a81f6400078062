import ChronicleTodoDomain
import ChronicleTodoModel
import ChronicleLog
import Foundation

/// The todo app's read models as of a past position, folded in memory from the log by its
/// model (``ModelReplay``): what `replay` prints.
///
/// ```swift
/// let then = try Replay.snapshot(log: log, until: 120)
/// then.todos      // the todos as they were after event 120
/// ```
///
/// The stored models are not touched. Memory grows with the entities: every one ever created
/// is kept, deleted or not, so that a restoration brings it back.
public enum Replay {
    /// Folds events 1 through `position` by the todo app's model, merged as the stored models are.
    ///
    /// Events the model cannot read (an unknown type, unreadable data) are skipped, as the stored models skip them.
    /// - throws: ``ProjectionError/beyondHead(position:head:)`` when `position` is past the log's end.
    public static func snapshot(log: EventLog, until position: UInt64) throws -> TodoAppSnapshot {
        try result(log: log, until: position).snapshot
    }

    /// ``snapshot(log:until:)`` with the number of events read and skipped.
    public static func result(log: EventLog, until position: UInt64) throws -> ReplayResult {
        let replayed = try ModelReplay.snapshot(log: log, model: TodoAppModel.model, until: position, keepingVersions: false)
        return ReplayResult(position: replayed.position, snapshot: TodoAppSnapshot(replayed.snapshot),
                            events: replayed.events, skippedEvents: replayed.unread)
    }
}

/// The models as of a position, and what it took to build them.
public struct ReplayResult: Sendable, Equatable {
    /// The position replayed up to (included).
    public var position: UInt64
    /// Users, todos, tags and stats as of `position`.
    public var snapshot: TodoAppSnapshot
    /// Events read.
    public var events: UInt64
    /// Events skipped (unknown type or unreadable data).
    public var skippedEvents: UInt64
}

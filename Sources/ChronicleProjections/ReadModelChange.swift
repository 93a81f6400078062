import ChronicleTodoDomain
import Foundation

/// One change of the read models, as delivered by ``ProjectionRunner/changes()``.
///
/// A view model subscribes and updates what it shows (the role of SwiftData's `@Query`
/// or `NSFetchedResultsController`):
///
/// ```swift
/// for await change in runner.changes() {
///     switch change {
///     case .todo(let todo, _): rows[todo.id] = todo
///     case .todoRemoved(let id, _): rows[id] = nil
///     case .invalidated(.todos, _): rows = try models.todos()   // re-query
///     default: break
///     }
/// }
/// ```
///
/// Changes are net per applied batch: an entity touched several times in one batch
/// is reported once, in its final state, with the position of the last event that
/// touched it.
public enum ReadModelChange: Sendable, Equatable {
    /// A user was created or changed; the value is its new state.
    case user(User, position: UInt64)
    /// A user was deleted.
    case userRemoved(UUID, position: UInt64)
    /// A todo was created or changed; the value is its new state.
    case todo(Todo, position: UInt64)
    /// A todo was deleted.
    case todoRemoved(UUID, position: UInt64)
    /// A day's counts changed (it has at least one live todo).
    case stat(DailyStat, position: UInt64)
    /// A day no longer has live todos.
    case statRemoved(CalendarDay, position: UInt64)
    /// A tag was created or changed; the value is its new state.
    case tag(Tag, position: UInt64)
    /// A tag was deleted (todos stop showing it: an ``invalidated(_:position:)`` of `.todos` follows).
    case tagRemoved(UUID, position: UInt64)
    /// A merge overruled a write of this store (see ``MergeConflict``).
    case conflict(MergeConflict, position: UInt64)
    /// The model changed in a way not itemized here — it was rebuilt, or another process
    /// applied events to it: re-query what you show.
    case invalidated(ProjectionName, position: UInt64)
    /// An entity of a declared model changed (created, changed, deleted or restored): read
    /// it, or what shows it, again. Named by the model's entity (`Note`) and its id.
    case entity(String, UUID, position: UInt64)
    /// Another process brought a declared model's stored entities up to `position`: re-query
    /// what you show of them.
    case entitiesInvalidated(position: UInt64)

    /// The log position the change reflects.
    public var position: UInt64 {
        switch self {
        case .user(_, let position), .userRemoved(_, let position), .todo(_, let position),
             .todoRemoved(_, let position), .stat(_, let position), .statRemoved(_, let position),
             .tag(_, let position), .tagRemoved(_, let position), .conflict(_, let position),
             .invalidated(_, let position), .entity(_, _, let position), .entitiesInvalidated(let position):
            position
        }
    }
}

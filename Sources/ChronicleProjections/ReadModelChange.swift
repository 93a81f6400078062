import Foundation

/// One change of a store's stored entities, as ``ModelStatesFollower/changes()`` (and so
/// `ChronicleStore.changes()`) delivers it.
///
/// A view model subscribes and reads again what the change may alter (the role of SwiftData's
/// `@Query` or `NSFetchedResultsController`; `ChronicleStore.observe(_:)` does it for you):
///
/// ```swift
/// for await change in store.changes() {
///     switch change {
///     case .entity("Todo", let id, _): rows[id] = try await store.todo(id)
///     case .entity: break
///     case .entitiesInvalidated: rows = try await store.todos()   // re-query
///     }
/// }
/// ```
///
/// Changes are net per folded batch: an entity touched several times in one batch is
/// reported once, with the position the batch reached.
public enum ReadModelChange: Sendable, Equatable {
    /// An entity changed (created, changed, deleted, restored, or shown apart after a merge):
    /// read it, or what shows it, again. Named by the model's entity (`Todo`, `Note`) and its id.
    case entity(String, UUID, position: UInt64)
    /// Another process folded the entities up to `position` first, or a rebuild swapped new
    /// ones in: this process cannot say which changed; re-query what you show.
    case entitiesInvalidated(position: UInt64)

    /// The log position the change reflects.
    public var position: UInt64 {
        switch self {
        case .entity(_, _, let position), .entitiesInvalidated(let position): position
        }
    }
}

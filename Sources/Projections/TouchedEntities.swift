import Foundation

/// A projection batch's in-memory overlay: each entity the batch touched, as stored before
/// the batch (read once) and as folded so far, with the position of the last event that
/// touched it (the latest, when a refold folds earlier events again). ``sorted`` gives them in id order, so `finish` writes keys in order.
struct TouchedEntities<Entity> {
    struct Entry {
        /// As stored before the batch (nil: absent).
        var original: Entity?
        /// As folded so far (nil: absent).
        var current: Entity?
        var position: UInt64
    }

    private var entries: [UUID: Entry] = [:]

    /// Folds one event about `id` at `position`: `load` reads the stored entity the first
    /// time the batch touches it, `fold` maps the entity before the event to the one after.
    mutating func fold(_ id: UUID, at position: UInt64, load: () throws -> Entity?,
                       _ fold: (Entity?) -> Entity?) rethrows {
        var entry: Entry
        if let known = entries[id] {
            entry = known
        } else {
            let stored = try load()
            entry = Entry(original: stored, current: stored, position: position)
        }
        entry.current = fold(entry.current)
        entry.position = max(entry.position, position)
        entries[id] = entry
    }

    /// Every touched entity, by id (the byte order of the models' keys).
    var sorted: [(key: UUID, value: Entry)] {
        entries.sorted { IDOrder($0.key) < IDOrder($1.key) }
    }
}

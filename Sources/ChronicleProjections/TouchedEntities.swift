import Foundation

/// A projection batch's in-memory overlay: each entity the batch touched, as stored before
/// the batch (read once) and as folded so far, with the position of the last event that
/// touched it (the latest, when a refold folds earlier events again). ``forEachSorted(_:)``
/// visits them in id order, so `finish` writes keys in order.
///
/// The entries live in one array, found by id through a table of their indexes, so folding
/// an event changes its entry in place and growing the table moves small indexes, not entities.
struct TouchedEntities<Entity> {
    struct Entry {
        /// As stored before the batch (nil: absent).
        var original: Entity?
        /// As folded so far (nil: absent).
        var current: Entity?
        var position: UInt64
    }

    private var ids: [UUID] = []

    /// How many entities the overlay holds.
    var count: Int { ids.count }
    /// The bytes of the stored entities loaded into the overlay, by `measure` (what it holds
    /// besides what the events folded into it brought).
    private(set) var loadedBytes = 0
    private let measure: (Entity) -> Int

    /// An empty overlay; `measure` tells the bytes a loaded entity holds (its strings and arrays).
    init(measure: @escaping (Entity) -> Int = { _ in 0 }) {
        self.measure = measure
    }
    private var entries: [Entry] = []
    private var indexes: [IDOrder: Int] = [:]

    /// The most entities ``reserve(_:)`` makes room for: more than a transaction of the default
    /// sizes touches (a caller's batch size may be anything; beyond it the overlay grows).
    static var largestReservation: Int { 1 << 17 }

    /// Makes room for `count` entities (up to ``largestReservation``): a batch's overlay grown
    /// from empty rehashed every id at each doubling of its table and copied its entries at each
    /// doubling of their array.
    mutating func reserve(_ count: Int) {
        let count = min(max(0, count), Self.largestReservation)
        ids.reserveCapacity(count)
        entries.reserveCapacity(count)
        indexes.reserveCapacity(count)
    }

    /// Folds one event about `id` at `position`: `load` reads the stored entity the first
    /// time the batch touches it, `fold` changes the entity (nil: absent) where it lies.
    mutating func fold(_ id: UUID, at position: UInt64, load: () throws -> Entity?,
                       _ fold: (inout Entity?) -> Void) rethrows {
        let key = IDOrder(id)
        let index: Int
        if let known = indexes[key] {
            index = known
        } else {
            let stored = try load()
            if let stored { loadedBytes += measure(stored) }
            index = entries.count
            entries.append(Entry(original: stored, current: stored, position: position))
            ids.append(id)
            indexes[key] = index
        }
        // In place: the fold's change is made on the only reference, nothing is copied.
        fold(&entries[index].current)
        entries[index].position = max(entries[index].position, position)
    }

    /// Hands each touched entity to `body`, by id (the byte order of the models' keys): only the
    /// order is sorted. A sorted array of the entries was a copy of the whole overlay (about
    /// 13 MiB for a rebuild's transaction). Each entry is still copied for its call (its strings
    /// retained, then released), from the array as from a buffer pointer to it; moving them out
    /// instead made a rebuild slower (docs/BENCHMARKS-HISTORY.md, round 11).
    func forEachSorted(_ body: (UUID, Entry) throws -> Void) rethrows {
        var order = ids.indices.map { (IDOrder(ids[$0]), $0) }
        order.sort { $0.0 < $1.0 }
        for (_, index) in order { try body(ids[index], entries[index]) }
    }
}

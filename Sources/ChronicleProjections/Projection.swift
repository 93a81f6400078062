import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleLMDB

/// A read model kept from the log: a name, a version, and a deterministic fold of
/// events into changes of its databases.
///
/// A batch of events is applied inside one write transaction: ``apply(_:at:)`` folds
/// each event into an in-memory overlay (reading every entity it touches from the
/// database once), and ``finish(changes:)`` writes the net result, keys in order.
/// What is stored depends only on the folded state, never on where batches begin
/// and end, so a rebuilt model is byte-identical to the incrementally built one.
///
/// Bump ``version`` whenever the fold or a stored layout changes: a store whose
/// model was built by another version is rebuilt (blue/green) when it is opened.
protocol Projection {
    /// Which read model this is.
    static var name: ProjectionName { get }
    /// The version of the fold and of the stored layout.
    static var version: UInt32 { get }
    /// The databases the projection owns, without the slot suffix (the first holds the entities).
    static var databaseNames: [String] { get }

    /// Starts a batch writing to `databases` (one per ``databaseNames`` entry, same order);
    /// `ranks` looks up where the merge ranks events already applied.
    init(txn: Transaction, databases: [Database], ranks: MergeRanks)
    /// Sizes the batch for about `count` touched entities (a projection whose entities are
    /// few may ignore it).
    mutating func reserve(entities count: Int)
    /// How many entities the batch holds in memory so far (its overlay of touched entities).
    var heldEntities: Int { get }
    /// The bytes of the stored entities the batch loaded into its overlay so far (their strings
    /// and arrays): with the events folded, what its overlay holds.
    var loadedBytes: Int { get }
    /// Whether folding `item` may change this model: false for events about entities it
    /// keeps nothing of, which the fold then passes over without handing them in.
    static func concerns(_ item: DecodedEvents.Item) -> Bool
    /// Folds one event in; events that are not about this model change nothing.
    mutating func apply(_ event: DomainEvent, at position: UInt64) throws
    /// Forgets the entity `id` of `kind` as if none of its events had been folded (a model
    /// not about that kind does nothing, or forgets what it derived from it).
    mutating func forget(_ kind: EntityKind, _ id: UUID, at position: UInt64) throws
    /// Folds one decoded item in: by default its event, unless the merge overruled it, or,
    /// for an item to refold, its entity again from its stream's events in the merge's order.
    mutating func apply(_ item: DecodedEvents.Item) throws
    /// Folds the events after `checkpoint` into this batch (the first of them must be the
    /// one right after it); returns how many were skipped. Call ``finish(changes:)`` after
    /// the last chunk of the batch. A requirement, so that each model's fold is compiled for
    /// it: a build holds its models as `any Projection`, and the extension's fold called
    /// through one ran generic, looking up `concerns` and `apply` for every event.
    mutating func fold(_ events: DecodedEvents, after checkpoint: UInt64) throws -> UInt64
    /// Writes the batch's net changes and, when `changes` is not nil, describes them there.
    mutating func finish(changes: inout [ReadModelChange]?) throws
}

/// A batch of log events, each decoded once for every projection, as the merge applies
/// them (see ``MergeDecoder``).
struct DecodedEvents: Sendable {
    struct Item: Sendable {
        var position: UInt64
        /// `nil` for an event of an unknown type or with undecodable data.
        var event: DomainEvent? { didSet { kind = event?.entityKind } }
        /// The kind of entity ``event`` is about (nil with it), beside it so that a model
        /// passes over the events of other kinds without reading them: an event read out of
        /// the items' array is copied (its strings retained, then released).
        private(set) var kind: EntityKind?
        /// Where the merge ranks the event (the tags projection orders colliding names by it).
        var rank: MergeRank
        /// The event was decoded, but what it writes is held by later writes: it changes nothing.
        var overruled = false
        /// What the event overruled of this store's writes.
        var conflicts: [MergeConflict] = []
        /// Set when the log's order of the event's stream differs from the merge's (a pulled
        /// event that ranks before events of this store already applied): every event of the
        /// stream so far, this one included, in the merge's order. The entity is then forgotten
        /// and folded again from these, instead of folding ``event`` on top.
        var refold: [Item]?

        init(position: UInt64, event: DomainEvent?, rank: MergeRank) {
            self.position = position
            self.event = event
            kind = event?.entityKind
            self.rank = rank
        }
    }

    var items: [Item]

    var first: UInt64? { items.first?.position }
    var last: UInt64? { items.last?.position }
}

extension Projection {
    /// Applies the events after `checkpoint` in one batch; returns how many of them were skipped.
    mutating func apply(_ item: DecodedEvents.Item) throws {
        if let refold = item.refold, let event = item.event {
            try forget(event.entityKind, event.entityID, at: item.position)
            for earlier in refold { if let event = earlier.event { try apply(event, at: earlier.position) } }
            return
        }
        if let event = item.event, !item.overruled { try apply(event, at: item.position) }
    }

    mutating func forget(_ kind: EntityKind, _ id: UUID, at position: UInt64) throws {}

    mutating func reserve(entities count: Int) {}

    var heldEntities: Int { 0 }

    var loadedBytes: Int { 0 }

    static func concerns(_ item: DecodedEvents.Item) -> Bool { true }

    static func apply(_ events: DecodedEvents, after checkpoint: UInt64, txn: Transaction, databases: [Database],
                      ranks: MergeRanks, changes: inout [ReadModelChange]?) throws -> UInt64 {
        guard let last = events.last, last > checkpoint else { return 0 }
        var batch = Self(txn: txn, databases: databases, ranks: ranks)
        let skipped = try batch.fold(events, after: checkpoint)
        try batch.finish(changes: &changes)
        return skipped
    }

    mutating func fold(_ events: DecodedEvents, after checkpoint: UInt64) throws -> UInt64 {
        guard let first = events.first, let last = events.last, last > checkpoint else { return 0 }
        guard first <= checkpoint &+ 1 else {
            throw ProjectionError.outOfOrder(projection: Self.name, checkpoint: checkpoint, next: first)
        }
        var skipped: UInt64 = 0
        // By index: an item this model is not concerned with is looked at, not copied (one
        // handed to `apply` is: a call copies an array's element, strings and all).
        for index in events.items.indices where events.items[index].position > checkpoint {
            if events.items[index].kind == nil { skipped += 1 }
            guard Self.concerns(events.items[index]) else { continue }
            try apply(events.items[index])
        }
        return skipped
    }
}

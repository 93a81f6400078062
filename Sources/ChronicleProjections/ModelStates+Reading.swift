import ChronicleSchema
import ChronicleLog
import Foundation
import ChronicleLMDB

extension ModelStates {
    /// Entity `id` of `entity` as folded, deleted or not; nil when none of its events created it.
    public func state(of entity: String, id: UUID) throws -> ChronicleModel.EntityState? {
        try read { view in try view.stored(entity, id)?.state }
    }

    /// The shown entities of `entity` (``ChronicleModel/Snapshot/shown(_:)``: live, parents
    /// shown, sets with their shown members, colliding unique values told apart), by id.
    public func shown(_ entity: String) throws -> [ChronicleModel.EntityState] {
        try read { view in
            guard let number = entityNumbers[entity] else { return [] }
            var all: [StoredEntity] = []
            try view.scan(view.tables.live[number], prefix: []) { key, value in
                guard let id = ModelStateKeys.trailingID(key) else { return }
                let stored = try StoredEntity.decode(value, id: id, entity: model.entities[number].name, layout: layouts[number])
                all.append(stored)
            }
            return try view.shown(all, number: number)
        }
    }

    /// Entity `id` of `entity` as ``shown(_:)`` shows it; nil when it is not shown.
    public func shown(_ entity: String, id: UUID) throws -> ChronicleModel.EntityState? {
        try read { view in
            guard let stored = try view.stored(entity, id), !stored.state.isDeleted, let number = entityNumbers[entity] else { return nil }
            return try view.shown([stored], number: number).first
        }
    }

    /// What a command decides on, as of the position folded so far.
    public func reading() throws -> Reading {
        Reading(states: self, position: try position())
    }

    /// The stored states as a command's decision reads them (``ChronicleModel/StateReading``).
    public struct Reading: ChronicleModel.StateReading, Sendable {
        let states: ModelStates
        /// The position the states were folded up to when the reading began.
        public let position: UInt64

        public func state(of entity: String, id: UUID) throws -> ChronicleModel.EntityState? {
            try states.state(of: entity, id: id)
        }

        public func isShown(_ entity: String, id: UUID) throws -> Bool {
            try states.read { view in
                return try view.stored(entity, id)?.isShown ?? false
            }
        }

        public func holder(of entity: String, field: String, key: String) throws -> UUID? {
            try holders(of: entity, field: field, key: key, first: true).first
        }

        public func holders(of entity: String, field: String, key: String) throws -> [UUID] {
            try holders(of: entity, field: field, key: key, first: false)
        }

        /// The live entities holding `key` in their unique `field` (the first only, with `first`).
        private func holders(of entity: String, field: String, key: String, first: Bool) throws -> [UUID] {
            guard let number = states.entityNumbers[entity], let declared = states.model.entity(named: entity),
                  let index = declared.fields.firstIndex(where: { $0.name == field }),
                  let uniqueness = declared.fields[index].unique else { return [] }
            return try states.read { view in
                var found: [UUID] = []
                try view.scan(view.tables.unique, prefix: ModelStateKeys.uniquePrefix(number, index, key: key)) { entry, _ in
                    // A long key is stored hashed: the holder's own value decides.
                    guard !(first && !found.isEmpty), let id = ModelStateKeys.trailingID(entry),
                          let state = try view.stored(entity, id)?.state, !state.isDeleted,
                          case .text(let text)? = state.values[field], uniqueness.key(text) == key else { return }
                    found.append(id)
                }
                return found
            }
        }

        public func children(of entity: String, field: String, parent: UUID) throws -> [ChronicleModel.EntityState] {
            guard let number = states.entityNumbers[entity],
                  let index = states.model.entity(named: entity)?.fields.firstIndex(where: { $0.name == field }) else { return [] }
            return try states.read { view in
                var found: [ChronicleModel.EntityState] = []
                try view.scan(view.tables.children, prefix: ModelStateKeys.childrenPrefix(number, index, parent: parent)) { entry, _ in
                    if let id = ModelStateKeys.trailingID(entry), let state = try view.stored(entity, id)?.state { found.append(state) }
                }
                return found
            }
        }

        /// The stream's version as of ``position``: an event appended since makes the
        /// decision's append conflict, so that it is decided again on what that event changed.
        public func version(of stream: String) throws -> UInt64 {
            try states.log.version(of: stream, asOf: position)
        }
    }

    /// Runs `body` in a read transaction of the states.
    func read<T>(_ body: (inout StatesView) throws -> T) throws -> T {
        try ProjectionError.mappingStorage {
            try environment.read { txn in
                var view = StatesView(states: self, txn: txn, tables: try tables(txn))
                return try body(&view)
            }
        }
    }
}

/// The entities one read needs, loaded from the states. Whether each is shown is in its
/// flags (the fold keeps up which are hidden by their parents); its sets' members are judged
/// where they are stored (``StoredEntityBytes``), and remembered for the read. Only when
/// unique values collide is everything loaded into a ``ChronicleModel/Snapshot``, with the
/// ranks of their writes.
struct StatesView {
    private struct Key: Hashable {
        var entity: Int
        var id: UUID
    }

    let states: ModelStates
    let txn: Transaction
    /// The tables read: the active slot's as the read began.
    let tables: ModelStateTables
    private var loaded: [Key: StoredEntity?] = [:]
    /// Whether each entity judged in place is shown; nil for one that is not stored.
    private var shownInPlace: [Key: Bool?] = [:]

    init(states: ModelStates, txn: Transaction, tables: ModelStateTables) {
        self.states = states
        self.txn = txn
        self.tables = tables
    }

    /// Entity `id` of `entity`, decoded when first asked for.
    mutating func stored(_ entity: String, _ id: UUID) throws -> StoredEntity? {
        guard let number = states.entityNumbers[entity] else { return nil }
        return try stored(number, id)
    }

    private mutating func stored(_ number: Int, _ id: UUID) throws -> StoredEntity? {
        let key = Key(entity: number, id: id)
        if let known = loaded[key] { return known }
        let stored = try decoded(number, id)
        loaded[key] = .some(stored)
        return stored
    }

    /// Entity `id` of entity `number`, decoded without keeping it for the read (a candidate
    /// of a range, read once).
    func decoded(_ number: Int, _ id: UUID) throws -> StoredEntity? {
        try storedBytes(number, id).map { try StoredEntity.decode($0, id: id, entity: states.model.entities[number].name, layout: states.layouts[number]) }
    }

    /// The stored bytes of entity `id` of entity `number`, live or deleted (valid for the
    /// read); nil when it is not stored.
    func storedBytes(_ number: Int, _ id: UUID) throws -> UnsafeRawBufferPointer? {
        try tables.storedBytes(txn, number, id)
    }

    /// The stored bytes of live entity `id` of entity `number` (valid for the read); nil when
    /// it is deleted or not stored.
    func liveBytes(_ number: Int, _ id: UUID) throws -> UnsafeRawBufferPointer? {
        try tables.liveBytes(txn, number, id)
    }

    /// Adds an entity read by a scan.
    mutating func put(_ stored: StoredEntity) {
        guard let number = states.entityNumbers[stored.state.entity] else { return }
        let key = Key(entity: number, id: stored.state.id)
        if loaded[key] == nil { loaded[key] = .some(stored) }
    }

    /// Whether entity `id` of entity `number` is shown, read from its flags where it is
    /// stored (``StoredEntity/isHidden`` is kept up by the fold); nil when it is not live.
    /// Remembered for the read: a list's entities share their sets' members.
    mutating func isShown(_ number: Int, _ id: UUID) throws -> Bool? {
        let key = Key(entity: number, id: id)
        if let known = shownInPlace[key] { return known }
        let bytes = try liveBytes(number, id)
        let shown = try bytes.map { try StoredEntityBytes(entity: states.model.entities[number].name, bytes: $0).isShown }
        shownInPlace[key] = .some(shown)
        return shown
    }

    /// `candidates` (entities of entity `number`, loaded) as ``ChronicleModel/Snapshot/shown(_:)``
    /// shows them, in the order given: each one's parents and set members are judged where
    /// they are stored. Only when a unique value of one is held by another live entity too
    /// (written apart on two devices) are the holders loaded and the snapshot's rules
    /// applied, which tell them apart.
    mutating func shown(_ candidates: [StoredEntity], number: Int) throws -> [ChronicleModel.EntityState] {
        let entity = states.model.entities[number]
        let uniqueFields = states.uniqueFields[number]
        var shown: [ChronicleModel.EntityState] = []
        shown.reserveCapacity(candidates.count)
        var collides = false
        for stored in candidates {
            guard stored.isShown else { continue }
            var state = stored.state
            for set in states.followed[number] where set.isSet {
                state.values[set.field] = .ids(try state.members(of: set.field).filter { member in
                    try isShown(set.targetIndex, member) ?? false
                })
            }
            for index in uniqueFields where !collides {
                guard let uniqueness = entity.fields[index].unique, case .text(let text)? = state.values[entity.fields[index].name] else { continue }
                var holders = 0
                try scan(tables.unique, prefix: ModelStateKeys.uniquePrefix(number, index, key: uniqueness.key(text))) { _, _ in holders += 1 }
                if holders > 1 { collides = true }
            }
            shown.append(state)
        }
        guard collides else { return shown }
        // The rare case: load every live holder of the candidates' unique values, with what
        // the rules look at, and let the snapshot's rules rank and tell them apart.
        for stored in candidates { put(stored) }
        for stored in candidates where !stored.state.isDeleted { try loadCollisions(of: stored, number: number) }
        try loadFollowed()
        let order = Dictionary(uniqueKeysWithValues: candidates.enumerated().map { ($1.state.id, $0) })
        return try snapshot().shown(entity.name).filter { order[$0.id] != nil }.sorted { order[$0.id]! < order[$1.id]! }
    }

    /// Loads, for everything loaded, what the rules of what is shown look at: parents up
    /// their chains and sets' members, until nothing more is named.
    private mutating func loadFollowed() throws {
        var done: Set<Key> = []
        while true {
            let pending = loaded.compactMap { key, stored in done.contains(key) ? nil : stored.map { (key, $0) } }
            if pending.isEmpty { return }
            for (key, stored) in pending {
                done.insert(key)
                for followed in states.followed[key.entity] {
                    let ids = followed.isSet ? stored.state.members(of: followed.field) : stored.state.reference(followed.field).map { [$0] } ?? []
                    for id in ids { _ = try self.stored(followed.targetIndex, id) }
                }
            }
        }
    }

    /// Calls `body` with each entry of `db` whose key begins with `prefix`, in key order.
    func scan(_ db: Database, prefix: [UInt8],
              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws {
        try txn.scan(db, prefix: prefix, body)
    }

    /// Calls `body` with each entry of `db` from key `start` on, while its key begins with
    /// `prefix` and `body` returns true.
    func scan(_ db: Database, from start: [UInt8], within prefix: [UInt8],
              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try txn.scan(db, from: start, within: prefix, body)
    }

    /// Everything loaded, with the ranks of unique writes as known now. Ranks only order
    /// colliding values: the log is asked for the server positions of those alone (most reads
    /// load no collision, and skip it).
    func snapshot() throws -> ChronicleModel.Snapshot {
        let entities = loaded.values.compactMap { $0 }
        var holders: [String: [UInt64]] = [:]   // entity, field and key → the positions that wrote it
        for stored in entities where !stored.state.isDeleted {
            guard let declared = states.model.entity(named: stored.state.entity) else { continue }
            for (field, position) in stored.uniqueWrites {
                guard let uniqueness = declared.field(named: field)?.unique, case .text(let text)? = stored.state.values[field] else { continue }
                holders["\(declared.name)\u{0}\(field)\u{0}\(uniqueness.key(text))", default: []].append(position)
            }
        }
        let colliding = holders.values.filter { $0.count > 1 }.flatMap { $0 }
        let servers = colliding.isEmpty ? [:] : try states.log.upstreamPositions(of: colliding)
        var snapshot = ChronicleModel.Snapshot(states.model)
        for stored in entities {
            snapshot.load(stored.state, uniqueRanks: stored.uniqueWrites.mapValues { .init(upstream: servers[$0], position: $0) })
        }
        return snapshot
    }
}

extension Transaction {
    /// Calls `body` with each entry of `db` whose key begins with `prefix` (every entry, for
    /// an empty one), in key order.
    func scan(_ db: Database, prefix: [UInt8],
              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) throws {
        try scan(db, from: prefix, within: prefix) { key, value in
            try body(key, value)
            return true
        }
    }

    /// Calls `body` with each entry of `db` from key `start` on, while its key begins with
    /// `prefix` and `body` returns true.
    func scan(_ db: Database, from start: [UInt8], within prefix: [UInt8],
              _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool) throws {
        try withCursor(db) { cursor in
            try prefix.withUnsafeBytes { prefix in
                // LMDB takes no empty key to seek to: from the empty key is from the first.
                var entry = start.isEmpty ? try cursor.first() : try cursor.seek(atLeast: start)
                while let current = entry, current.key.count >= prefix.count,
                      prefix.isEmpty || memcmp(current.key.baseAddress!, prefix.baseAddress!, prefix.count) == 0,
                      try body(current.key, current.value) {
                    entry = try cursor.next()
                }
            }
        }
    }
}

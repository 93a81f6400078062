import ChronicleSchema
import EventLog
import Foundation
import LMDB

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
            try view.scan(states, prefix: ModelStateKeys.prefix(number)) { key, value in
                guard let id = ModelStateKeys.trailingID(key) else { return }
                let stored = try StoredEntity.decode(value, id: id, entity: model.entities[number])
                try view.put(stored)
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
                guard let stored = try view.stored(entity, id) else { return false }
                return try view.isShown(stored.state)
            }
        }

        public func holder(of entity: String, field: String, key: String) throws -> UUID? {
            guard let number = states.entityNumbers[entity], let declared = states.model.entity(named: entity),
                  let index = declared.fields.firstIndex(where: { $0.name == field }),
                  let uniqueness = declared.fields[index].unique else { return nil }
            return try states.read { view in
                var found: UUID?
                try view.scan(states.unique, prefix: ModelStateKeys.uniquePrefix(number, index, key: key)) { entry, _ in
                    // A long key is stored hashed: the holder's own value decides.
                    guard found == nil, let id = ModelStateKeys.trailingID(entry),
                          let state = try view.stored(entity, id)?.state, !state.isDeleted,
                          case .text(let text)? = state.values[field], uniqueness.key(text) == key else { return }
                    found = id
                }
                return found
            }
        }

        public func children(of entity: String, field: String, parent: UUID) throws -> [ChronicleModel.EntityState] {
            guard let number = states.entityNumbers[entity],
                  let index = states.model.entity(named: entity)?.fields.firstIndex(where: { $0.name == field }) else { return [] }
            return try states.read { view in
                var found: [ChronicleModel.EntityState] = []
                try view.scan(states.children, prefix: ModelStateKeys.childrenPrefix(number, index, parent: parent)) { entry, _ in
                    if let id = ModelStateKeys.trailingID(entry), let state = try view.stored(entity, id)?.state { found.append(state) }
                }
                return found
            }
        }

        public func version(of stream: String) throws -> UInt64 {
            try states.log.version(of: stream)
        }
    }

    /// Runs `body` in a read transaction of the states.
    func read<T>(_ body: (inout StatesView) throws -> T) throws -> T {
        try ProjectionError.mappingStorage {
            try environment.read { txn in
                var view = StatesView(states: self, txn: txn)
                return try body(&view)
            }
        }
    }
}

/// The entities one read needs, loaded from the states into a ``ChronicleModel/Snapshot`` with
/// everything the rules of what is shown look at: each one's parents up its chain, its sets'
/// members, and the ranks of its unique values' writes.
struct StatesView {
    private struct Key: Hashable {
        var entity: Int
        var id: UUID
    }

    let states: ModelStates
    let txn: Transaction
    private var loaded: [Key: StoredEntity?] = [:]

    init(states: ModelStates, txn: Transaction) {
        self.states = states
        self.txn = txn
    }

    /// Entity `id` of `entity`, loaded with what it needs when first asked for.
    mutating func stored(_ entity: String, _ id: UUID, depth: Int = 0) throws -> StoredEntity? {
        guard let number = states.entityNumbers[entity] else { return nil }
        let key = Key(entity: number, id: id)
        if let known = loaded[key] { return known }
        let stored = try ModelStateKeys.state(number, id).withUnsafeBytes { key in
            try txn.get(states.states, key: key).map { try StoredEntity.decode($0, id: id, entity: states.model.entities[number]) }
        }
        loaded[key] = .some(stored)
        if let stored { try follow(stored, depth: depth) }
        return stored
    }

    /// Adds an entity read by a scan, with what it needs.
    mutating func put(_ stored: StoredEntity) throws {
        guard let number = states.entityNumbers[stored.state.entity] else { return }
        let key = Key(entity: number, id: stored.state.id)
        guard loaded[key] == nil else { return }
        loaded[key] = .some(stored)
        try follow(stored, depth: 0)
    }

    /// Whether `state` is shown (``ChronicleModel/isShown(_:parent:)``), its parents loaded as needed.
    mutating func isShown(_ state: ChronicleModel.EntityState) throws -> Bool {
        try states.showing.isShown(state) { entity, id in try stored(entity, id, depth: 1)?.state }
    }

    /// `candidates` (entities of entity `number`, loaded) as ``ChronicleModel/Snapshot/shown(_:)``
    /// shows them, sorted by id: each one's parents and set members are read as needed. Only
    /// when a unique value of one is held by another live entity too (written apart on two
    /// devices) are the holders loaded and the snapshot's rules applied, which tell them apart.
    mutating func shown(_ candidates: [StoredEntity], number: Int) throws -> [ChronicleModel.EntityState] {
        let entity = states.model.entities[number]
        let uniqueFields = entity.fields.indices.filter { entity.fields[$0].unique != nil }
        var shown: [ChronicleModel.EntityState] = []
        shown.reserveCapacity(candidates.count)
        var collides = false
        for stored in candidates {
            guard try isShown(stored.state) else { continue }
            var state = stored.state
            for (field, target, isSet) in states.followed[number] where isSet {
                state.values[field] = .ids(try state.members(of: field).filter { member in
                    try self.stored(target, member, depth: 1).map { try isShown($0.state) } ?? false
                })
            }
            for index in uniqueFields where !collides {
                guard let uniqueness = entity.fields[index].unique, case .text(let text)? = state.values[entity.fields[index].name] else { continue }
                var holders = 0
                try scan(states.unique, prefix: ModelStateKeys.uniquePrefix(number, index, key: uniqueness.key(text))) { _, _ in holders += 1 }
                if holders > 1 { collides = true }
            }
            shown.append(state)
        }
        if collides {
            // The rare case: load every live holder of the candidates' unique values, and let
            // the snapshot's rules rank and tell them apart.
            for stored in candidates where !stored.state.isDeleted { try loadCollisions(of: stored, number: number) }
            let ids = Set(candidates.map(\.state.id))
            return try snapshot().shown(entity.name).filter { ids.contains($0.id) }
        }
        return shown.sorted { ModelStateKeys.precedes($0.id, $1.id) }
    }

    /// Loads the parents (up to a chain as long as the model has entities: longer is a cycle)
    /// and the sets' members of `stored`.
    private mutating func follow(_ stored: StoredEntity, depth: Int) throws {
        guard depth <= states.model.entities.count, let number = states.entityNumbers[stored.state.entity] else { return }
        for (field, target, isSet) in states.followed[number] {
            if !isSet {
                if let parent = stored.state.reference(field) { _ = try self.stored(target, parent, depth: depth + 1) }
            } else if depth == 0 {
                for member in stored.state.members(of: field) { _ = try self.stored(target, member, depth: depth + 1) }
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
            // LMDB takes no empty key to seek to: from the empty key is from the first.
            var entry = start.isEmpty ? try cursor.first() : try cursor.seek(atLeast: start)
            while let current = entry, current.key.count >= prefix.count,
                  current.key.prefix(prefix.count).elementsEqual(prefix), try body(current.key, current.value) {
                entry = try cursor.next()
            }
        }
    }
}

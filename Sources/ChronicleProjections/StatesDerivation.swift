import ChronicleSchema
import Foundation
import ChronicleLMDB

/// What a declared model's stored states derive from the entities alone, made in one pass
/// once a rebuild has folded the log from far behind: the hidden flags, the index entries
/// (unique values, values, children by parent) and the aggregates' rows.
///
/// A catch-up keeps these up entity by entity, batch after batch: a rebuild that did so moved
/// each entity's entries and shares at every batch that touched it, and rewrote the index
/// pages at every commit. From the final states they are the same, derived once: each
/// stored entity is read, its entries gathered and written sorted, its share added to its
/// row. The tables it fills are empty (a rebuild's slot); the states' bytes are the fold's.
struct StatesDerivation {
    private let states: ModelStates
    private let txn: Transaction
    private let tables: ModelStateTables
    private typealias Key = ModelStatesBatch.Key
    /// Whether each entity met as a parent is shown (nil: not stored), where the model's hiding
    /// references have no cycle.
    private var parentsShown: [Key: Bool?] = [:]

    /// Derives the tables of `states` in `tables`, in `txn`.
    static func derive(_ states: ModelStates, _ txn: Transaction, _ tables: ModelStateTables) throws {
        var derivation = StatesDerivation(states: states, txn: txn, tables: tables)
        try derivation.derive()
    }

    private init(states: ModelStates, txn: Transaction, tables: ModelStateTables) {
        self.states = states
        self.txn = txn
        self.tables = tables
    }

    private mutating func derive() throws {
        var unique = IndexChanges(txn: txn, database: tables.unique)
        var values = IndexChanges(txn: txn, database: tables.values)
        var children = IndexChanges(txn: txn, database: tables.children)
        var rows: [[UInt8]: StoredAggregateRow] = [:]
        // Set once the scans are done: a table is not written while a cursor goes through it.
        var hidden: [(number: Int, id: UUID, bytes: [UInt8])] = []
        for (number, entity) in states.model.entities.enumerated() {
            let plans = states.indexPlans[number]
            // Live entities: every index, a share of each aggregate when shown, hidden when not.
            try txn.scan(tables.live[number], prefix: []) { key, value in
                guard let id = ModelStateKeys.trailingID(key) else { return }
                let state = try StoredEntity.decode(value, id: id, entity: entity, layout: states.layouts[number]).state
                for field in plans {
                    if let uniqueness = field.uniqueness,
                       var entry = ModelStatesBatch.uniqueEntry(state, field: field.name, under: uniqueness, entity: number, index: field.place) {
                        ModelStateKeys.append(id, to: &entry)
                        unique.add(entry)
                    }
                    if field.isValueIndexed, var entry = ModelStatesBatch.valueEntry(state, field: field.name, entity: number, index: field.place) {
                        ModelStateKeys.append(id, to: &entry)
                        values.add(entry)
                    }
                    if field.isReference { Self.addChild(state, field, number, to: &children) }
                }
                guard try isShown(Key(entity: number, id: id), state) else {
                    var bytes = Array(value)
                    bytes[0] |= StoredEntity.hiddenFlag
                    hidden.append((number, id, bytes))
                    return
                }
                for (aggregate, plan) in states.sharePlans[number] {
                    guard let share = StoredAggregateRow(share: state, planned: plan) else { continue }
                    rows[ModelStateKeys.row(aggregate, share.key), default: .empty(like: share)].add(share, sign: 1)
                }
            }
            // Deleted entities: in the children index alone (a restoration finds them there).
            let references = plans.filter(\.isReference)
            guard !references.isEmpty else { continue }
            try txn.scan(tables.deleted, prefix: ModelStateKeys.prefix(number)) { key, value in
                guard let id = ModelStateKeys.trailingID(key) else { return }
                let state = try StoredEntity.decode(value, id: id, entity: entity, layout: states.layouts[number]).state
                for field in references { Self.addChild(state, field, number, to: &children) }
            }
        }
        for (number, id, bytes) in hidden { try tables.put(txn, number, id, bytes: bytes, isDeleted: false) }
        for index in [unique, values, children] { try index.write() }
        for (key, row) in rows.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            try txn.put(tables.rows, key: key, value: row.encoded())
        }
    }

    /// Adds the entry of `state` (of the entity at `number`) under the parent its reference
    /// `field` names, if any.
    private static func addChild(_ state: ChronicleModel.EntityState, _ field: IndexedField, _ number: Int,
                                 to children: inout IndexChanges) {
        guard let parent = state.reference(at: field.place, named: field.name) else { return }
        var entry = ModelStateKeys.childrenPrefix(number, field.place, parent: parent)
        ModelStateKeys.append(state.id, to: &entry)
        children.add(entry)
    }

    /// Whether `state`, stored as `key`, is shown (``ChronicleModel/ShowingRule``).
    private mutating func isShown(_ key: Key, _ state: ChronicleModel.EntityState) throws -> Bool {
        guard states.showing.isAcyclic else {
            return try states.showing.isShown(state, place: key.entity) { place, id in try self.state(Key(entity: place, id: id)) }
        }
        return try states.showing.isShown(state, place: key.entity) { place, id in
            try parentIsShown(Key(entity: place, id: id))
        }
    }

    /// Whether parent `key` is shown (nil: not stored), judged once.
    private mutating func parentIsShown(_ key: Key) throws -> Bool? {
        if let known = parentsShown[key] { return known }
        let shown = try state(key).map { try isShown(key, $0) }
        parentsShown[key] = .some(shown)
        return shown
    }

    /// Entity `key` as stored, live or deleted.
    private func state(_ key: Key) throws -> ChronicleModel.EntityState? {
        let entity = states.model.entities[key.entity]
        return try tables.storedBytes(txn, key.entity, key.id).map {
            try StoredEntity.decode($0, id: key.id, entity: entity, layout: states.layouts[key.entity]).state
        }
    }
}

import ChronicleSchema
import Dispatch
import Foundation
import ChronicleLMDB
import Synchronization

/// What a declared model's stored states derive from the entities alone, made once a rebuild
/// has folded the log from far behind: the hidden flags, the index entries (unique values,
/// values, children by parent) and the aggregates' rows.
///
/// A catch-up keeps these up entity by entity, batch after batch: a rebuild that did so moved
/// each entity's entries and shares at every batch that touched it, and rewrote the index
/// pages at every commit. From the final states they are the same, derived once: each stored
/// entity is read, its entries gathered and written sorted, its share added to its row. The
/// entities are read in parts (each table split by id), a thread and a read transaction each,
/// in rounds of at most ``entitiesPerRound`` entities a part (so what is held waiting to be
/// written is bounded, whatever the store's size); a write transaction then stores what the
/// round derived, on a thread of its own while the next round is read. The tables it fills
/// are empty when it begins (a rebuild's slot); the states' bytes are the fold's.
struct StatesDerivation {
    private typealias Key = ModelStatesBatch.Key

    /// What one part of the stored entities derives.
    private struct Part: Sendable {
        var unique = KeyList()
        var values = KeyList()
        var children = KeyList()
        /// Each row's shares by its key, with its aggregate's place in the model.
        var rows: [[UInt8]: (aggregate: Int, row: StoredAggregateRow)] = [:]
        /// The live entities hidden by a parent, with their stored bytes so flagged.
        var hidden: [(number: Int, id: UUID, bytes: [UInt8])] = []
    }

    /// One table to read: entity `number`'s live entities or deleted ones (the keys beginning
    /// with `prefix`), split into parts at `bounds`.
    private struct Table: Sendable {
        let number: Int
        let isDeleted: Bool
        let prefix: [UInt8]
        /// The first key of each part after the first, ascending.
        let bounds: [[UInt8]]
    }

    private let states: ModelStates
    private let txn: Transaction
    private let tables: ModelStateTables
    private let judgement: ShownJudgement
    private var part = Part()

    /// The most entities a part reads in one round.
    static let entitiesPerRound = 131_072

    /// Where a part has read to: the table of the plan it reads, and the key it goes on from
    /// there (nil: the start of its range); nil when it is done.
    private typealias Place = (table: Int, from: [UInt8]?)

    /// Derives the tables of the slot `target` names from the entities stored there, read in
    /// `parts` parts at once, `entitiesPerRound` entities a part in each round. A round is
    /// written on a thread of its own while the next one is read: at most two rounds are held.
    static func derive(_ states: ModelStates, into target: ModelStates.FoldTarget,
                       parts: Int = ProcessInfo.processInfo.activeProcessorCount, entitiesPerRound: Int = entitiesPerRound) throws {
        let parts = max(1, min(parts, 8))
        try ProjectionError.mappingStorage {
            let plan = try states.environment.read { txn in try Self.plan(states, try target.tables(of: states, txn), parts: parts, txn) }
            let writer = RoundWriter()
            // Whatever ends the reading, the write running ends before this returns.
            defer { writer.drain() }
            var places = [Place?](repeating: (0, nil), count: parts)
            while places.contains(where: { $0 != nil }) {
                let round = places
                let derived = Mutex([Result<(Part, Place?), any Error>?](repeating: nil, count: parts))
                DispatchQueue.concurrentPerform(iterations: parts) { index in
                    guard let place = round[index] else {
                        derived.withLock { $0[index] = .success((Part(), nil)) }
                        return
                    }
                    let result = Result {
                        try states.environment.read { txn in
                            var derivation = StatesDerivation(states: states, txn: txn, tables: try target.tables(of: states, txn))
                            let next = try derivation.read(plan, part: index, from: place, limit: max(1, entitiesPerRound))
                            // Sorted here, on this part's thread: the write merges the parts' keys.
                            derivation.part.unique.sort()
                            derivation.part.values.sort()
                            derivation.part.children.sort()
                            return (derivation.part, next)
                        }
                    }
                    derived.withLock { $0[index] = result }
                }
                let taken: [Result<(Part, Place?), any Error>?] = derived.withLock { results in
                    let taken = results
                    results = []
                    return taken
                }
                var derivedParts: [Part] = []
                for index in taken.indices {
                    let (part, next) = try taken[index]!.get()
                    derivedParts.append(part)
                    places[index] = next
                }
                let written = derivedParts
                try writer.write {
                    try states.environment.write { txn in try Self.write(written, states, txn, try target.tables(of: states, txn)) }
                }
            }
            try writer.waitUntilFree()
        }
    }

    /// Writes one round at a time on a thread of its own, in the order given; the first
    /// failure is thrown by the next call.
    private final class RoundWriter: Sendable {
        private let queue = DispatchQueue(label: "chronicle.rebuild.derivation")
        private let group = DispatchGroup()
        private let failure = Mutex<(any Error)?>(nil)

        /// Waits for the round before, then starts `body` (no round is written after a failure).
        func write(_ body: @escaping @Sendable () throws -> Void) throws {
            try waitUntilFree()
            queue.async(group: group) { [self] in
                do { try body() } catch { failure.withLock { $0 = error } }
            }
        }

        /// Waits for the round being written; throws what a write threw.
        func waitUntilFree() throws {
            group.wait()
            if let error = failure.withLock({ $0 }) { throw error }
        }

        /// Waits for the round being written, whatever it throws.
        func drain() { group.wait() }
    }

    private init(states: ModelStates, txn: Transaction, tables: ModelStateTables) {
        self.states = states
        self.txn = txn
        self.tables = tables
        judgement = ShownJudgement(states.showing)
    }

    // MARK: - Planning

    /// The tables to read, each split into `parts` parts of about as many entities: between
    /// its first and its last id, by the ids' first 8 bytes (ids spread evenly there, by time
    /// or at random).
    private static func plan(_ states: ModelStates, _ tables: ModelStateTables, parts: Int, _ txn: Transaction) throws -> [Table] {
        var plan: [Table] = []
        for number in states.model.entities.indices {
            for isDeleted in [false, true] {
                // A deleted entity derives only its entries under its parents.
                if isDeleted, !states.indexPlans[number].contains(where: \.namesEntities) { continue }
                let prefix = isDeleted ? ModelStateKeys.prefix(number) : []
                var bounds: [[UInt8]] = []
                if parts > 1, let (first, last) = try ends(of: isDeleted ? tables.deleted : tables.live[number], prefix: prefix, txn),
                   last > first {
                    for index in 1..<parts {
                        var bound = prefix
                        withUnsafeBytes(of: (first + (last - first) / UInt64(parts) * UInt64(index)).bigEndian) { bound += $0 }
                        bounds.append(bound + [UInt8](repeating: 0, count: 8))
                    }
                }
                plan.append(Table(number: number, isDeleted: isDeleted, prefix: prefix, bounds: bounds))
            }
        }
        return plan
    }

    /// The first 8 bytes, as a number, of the first and the last id of `database` under `prefix`.
    private static func ends(of database: Database, prefix: [UInt8], _ txn: Transaction) throws -> (UInt64, UInt64)? {
        try txn.withCursor(database) { cursor in
            let first = prefix.isEmpty ? try cursor.first() : try cursor.seek(atLeast: prefix)
            guard let first, first.key.starts(with: prefix), let low = ModelStateKeys.trailingID(first.key) else { return nil }
            let last: Entry?
            if let after = StoredIDCeiling.successor(of: prefix) {
                last = try cursor.seek(atLeast: after) == nil ? try cursor.last() : try cursor.previous()
            } else {
                last = try cursor.last()
            }
            guard let last, last.key.starts(with: prefix), let high = ModelStateKeys.trailingID(last.key) else { return nil }
            return (IDOrder(low).high, IDOrder(high).high)
        }
    }

    // MARK: - Reading

    /// Derives what part `index` of the tables of `plan` holds, from `place` on, `limit`
    /// entities at most; returns where it stopped (nil: at the end of its part).
    private mutating func read(_ plan: [Table], part index: Int, from place: Place, limit: Int) throws -> Place? {
        var read = 0
        for number in place.table..<plan.count {
            let table = plan[number]
            guard index <= table.bounds.count else { continue }
            let start = number == place.table ? place.from ?? table.bounds.start(of: index, table.prefix) : table.bounds.start(of: index, table.prefix)
            let end = index < table.bounds.count ? table.bounds[index] : nil
            let database = table.isDeleted ? tables.deleted : tables.live[table.number]
            var stoppedAt: [UInt8]?
            try end.withUnsafeBytesIfAny { end in
                try txn.scan(database, from: start, within: table.prefix) { key, value in
                    if let end, !KeyOrder.precedes(key, end) { return false }
                    if read == limit {
                        stoppedAt = Array(key)
                        return false
                    }
                    read += 1
                    guard let id = ModelStateKeys.trailingID(key) else { return true }
                    try derive(table.number, id, value, isDeleted: table.isDeleted)
                    return true
                }
            }
            if let stoppedAt { return (number, stoppedAt) }
        }
        return nil
    }

    /// Derives what entity `id` of the entity at `number`, stored as `value`, adds.
    private mutating func derive(_ number: Int, _ id: UUID, _ value: UnsafeRawBufferPointer, isDeleted: Bool) throws {
        let state = try StoredEntity.decode(value, id: id, entity: states.model.entities[number].name, layout: states.layouts[number]).state
        // A deleted entity is only under its parents and its sets' members (a restoration finds it there).
        for field in states.indexPlans[number] where field.namesEntities {
            ModelStatesBatch.forEachChildrenEntry(state, field: field, entity: number) { entry in
                var entry = entry
                ModelStateKeys.append(id, to: &entry)
                part.children.append(entry)
            }
        }
        guard !isDeleted else { return }
        for field in states.indexPlans[number] {
            if let uniqueness = field.uniqueness,
               var entry = ModelStatesBatch.uniqueEntry(state, field: field.name, under: uniqueness, entity: number, index: field.place) {
                ModelStateKeys.append(id, to: &entry)
                part.unique.append(entry)
            }
            if field.isValueIndexed, var entry = ModelStatesBatch.valueEntry(state, field: field.name, entity: number, index: field.place) {
                ModelStateKeys.append(id, to: &entry)
                part.values.append(entry)
            }
        }
        // A closure, not `self.state`: a method taken as a value copies the derivation.
        guard try judgement.isShown(state, Key(entity: number, id: id), parent: { try self.state($0) }) else {
            var bytes = Array(value)
            bytes[0] |= StoredEntity.hiddenFlag
            part.hidden.append((number, id, bytes))
            return
        }
        for (aggregate, plan) in states.sharePlans[number] {
            guard let share = StoredAggregateRow(share: state, planned: plan) else { continue }
            part.rows[ModelStateKeys.row(aggregate, share.key), default: (aggregate, .empty(like: share))].row.add(share, sign: 1)
        }
    }

    /// Entity `key` as stored, live or deleted.
    private func state(_ key: Key) throws -> ChronicleModel.EntityState? {
        let entity = states.model.entities[key.entity]
        return try tables.storedBytes(txn, key.entity, key.id).map {
            try StoredEntity.decode($0, id: key.id, entity: entity.name, layout: states.layouts[key.entity]).state
        }
    }

    // MARK: - Writing

    /// Stores what `parts` derived in a round: the hidden flags, each part's index entries in
    /// key order, and the rows' shares added to what the rows hold.
    private static func write(_ parts: [Part], _ states: ModelStates, _ txn: Transaction, _ tables: ModelStateTables) throws {
        var rows = RowChanges(txn: txn, database: tables.rows, model: states.model)
        for part in parts {
            for (number, id, bytes) in part.hidden { try tables.put(txn, number, id, bytes: bytes, isDeleted: false) }
            for (aggregate, share) in part.rows.values { try rows.add(share, sign: 1, to: aggregate) }
        }
        // Each index's keys, the parts' merged: one ascending pass, appended past what is stored.
        for (keys, database) in [(parts.map(\.unique), tables.unique), (parts.map(\.values), tables.values),
                                 (parts.map(\.children), tables.children)] {
            try IndexChanges(txn: txn, database: database, adding: KeyList.merged(keys)).write()
        }
        try rows.write()
    }
}

private extension Array where Element == [UInt8] {
    /// The first key of part `index` of a table split at these bounds, whose keys begin with `prefix`.
    func start(of index: Int, _ prefix: [UInt8]) -> [UInt8] {
        index == 0 ? prefix : self[index - 1]
    }
}

private extension Optional where Wrapped == [UInt8] {
    /// Hands `body` the bytes, or nil.
    func withUnsafeBytesIfAny<T>(_ body: (UnsafeRawBufferPointer?) throws -> T) rethrows -> T {
        switch self {
        case .some(let bytes): try bytes.withUnsafeBytes { try body($0) }
        case .none: try body(nil)
        }
    }
}

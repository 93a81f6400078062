import ChronicleSchema
import ChronicleLog
import Foundation
import ChronicleLMDB

/// One write transaction of ``ModelStates/catchUp()``: events folded into an overlay of the
/// entities they touch (each read from the database once), then the changed entities and
/// their index entries written.
struct ModelStatesBatch {
    /// An entity of the model: its place, and its id. Keys sort as the tables store them: by
    /// entity, then by the id's bytes.
    struct Key: Hashable, Comparable {
        var entity: Int
        var id: UUID

        static func < (a: Key, b: Key) -> Bool {
            a.entity != b.entity ? a.entity < b.entity : IDOrder(a.id) < IDOrder(b.id)
        }

        /// Hashed as three numbers, not as the id's 16 bytes one by one.
        func hash(into hasher: inout Hasher) {
            let order = IDOrder(id)
            hasher.combine(entity)
            hasher.combine(order.high)
            hasher.combine(order.low)
        }
    }

    let owner: ModelStates
    /// The transaction it reads the stored entities in, then writes them in (a pipelined
    /// rebuild folds in a read transaction and writes in another: ``move(to:_:)``).
    private(set) var txn: Transaction
    /// The tables it folds into: the states readers use, or those a rebuild fills.
    private(set) var tables: ModelStateTables
    /// How the model reads the events folded.
    let reader: ChronicleModel.EventReader
    /// How events change an entity's state.
    let fold: ChronicleModel.StateFold
    /// What the batch knows of an entity it touched: what was stored, and the state folded so
    /// far, kept together (one lookup an event).
    struct Touched {
        /// What the database held before the batch (nil: nothing, or a batch writing states
        /// alone, which keeps only ``wasDeleted`` of it).
        var before: StoredEntity?
        /// Whether what the database held was deleted (nil: nothing held).
        var wasDeleted: Bool?
        /// The position of the last event folded into it (0: none).
        var lastApplied: UInt64
        /// The entity as folded so far (nil: none of its events created it).
        var state: ChronicleModel.EntityState?
        /// Per unique field, the rank of the write that gave its value.
        var uniqueRanks: [String: ChronicleModel.EventRank]

        /// An entity as stored before the batch (nil: nothing), its unique values' writes
        /// ranked by their positions alone; with `keepingBefore` false, what was stored is
        /// let go of once it is folded on (a rebuild's batch needs only whether it was deleted).
        init(stored: StoredEntity?, keepingBefore: Bool) {
            before = keepingBefore ? stored : nil
            wasDeleted = stored?.state.isDeleted
            lastApplied = stored?.lastApplied ?? 0
            state = stored?.state
            uniqueRanks = stored?.uniqueWrites.mapValues { .init(upstream: nil, position: $0) } ?? [:]
        }
    }

    /// What a batch folded, handed to the next one while its write may not have committed: the
    /// next batch takes the entities it touched from here, not from the database.
    struct Handover {
        let touched: [Key: Touched]
    }

    /// The batch folded before this one, when its write may not have committed.
    private var previous: Handover?
    /// Whether ``finish()`` writes the entities' states alone (``init(rebuildingAfter:states:txn:tables:)``).
    private let writesStatesOnly: Bool
    /// Per entity, whether it has a unique field (whose writes' ranks its states keep).
    private let keepsUniqueWrites: [Bool]

    /// The touched entities: one lookup per event finds all the batch keeps of one.
    private(set) var touched: [Key: Touched] = [:]
    /// The server positions of the events of the batch.
    private var upstream: [UInt64: UInt64] = [:]
    /// What pulled events overruled of this replica's writes, by position.
    private var conflicts: [(position: UInt64, conflict: MergeConflict)] = []
    /// The streams read whole during the batch (for merges: conflicts and refolds), each once.
    private var streams: [String: [RecordedEvent]] = [:]
    /// Events of the batch the model cannot read, and what was wrong with the first.
    private(set) var unread = 0
    private(set) var firstUnread: String?
    /// Per entity, the largest id its tables held when the batch began, read at the first
    /// load of one of its entities. Ids are mostly UUIDv7, rising with time: an entity the
    /// batch creates sorts after every stored one, and is not looked up. It holds while the
    /// fold loads, before ``finish()`` writes.
    private var ceilings: [StoredIDCeiling?]

    /// A batch folding into `tables`, reading what is stored in `txn`.
    init(states owner: ModelStates, txn: Transaction, tables: ModelStateTables) {
        self.init(states: owner, txn: txn, tables: tables, previous: nil, writingStatesOnly: false)
    }

    /// A batch of a rebuild from far behind, which writes the entities' states and the
    /// conflicts alone, none hidden: the indexes, rows and hidden flags are derived once its
    /// fold is done (``StatesDerivation``). The entities `previous` (the batch before, whose
    /// write may still be running) touched are taken from it, as its write stores them.
    init(rebuildingAfter previous: Handover?, states owner: ModelStates, txn: Transaction, tables: ModelStateTables) {
        self.init(states: owner, txn: txn, tables: tables, previous: previous, writingStatesOnly: true)
    }

    private init(states owner: ModelStates, txn: Transaction, tables: ModelStateTables, previous: Handover?,
                 writingStatesOnly: Bool) {
        self.owner = owner
        self.txn = txn
        self.tables = tables
        self.previous = previous
        // About as many entities as the batch before touched: room made once, not grown.
        touched.reserveCapacity(previous?.touched.count ?? 0)
        writesStatesOnly = writingStatesOnly
        keepsUniqueWrites = owner.model.entities.map { $0.fields.contains { $0.unique != nil } }
        reader = ChronicleModel.EventReader(owner.model)
        fold = ChronicleModel.StateFold(owner.model)
        ceilings = Array(repeating: nil, count: owner.model.entities.count)
    }

    /// Folds `chunk` (consecutive events of the log, read by the model) in; a batch folds its
    /// chunks in log order.
    mutating func fold(_ chunk: ModelChunk) throws {
        let entries = chunk.entries
        let model = owner.model
        upstream = try owner.log.upstreamPositions(in: chunk.first...chunk.last)
        // A pulled event overrules only this replica's earlier writes to its stream: whether
        // there are any is known first, for every stream at once (a device that pulls what
        // others wrote, the usual case, has none).
        var firstOwn: [String: UInt64] = [:]
        if !upstream.isEmpty {
            let pulled = upstream
            firstOwn = try owner.log.firstOwnPositions(inStreams: entries.lazy
                .filter { !$0.isOwn && pulled[$0.position] != nil }.map { ModelChunk.stream(of: $0, in: model) }, before: chunk.first)
            for entry in entries where entry.isOwn {
                let stream = ModelChunk.stream(of: entry, in: model)
                if firstOwn[stream] == nil { firstOwn[stream] = entry.position }
            }
        }
        // Room for each event touching an entity of its own, grown as an array grows.
        if touched.capacity < touched.count + entries.count {
            touched.reserveCapacity(max(2 * touched.capacity, touched.count + entries.count))
        }
        for entry in entries {
            // An event the model cannot read (another app's, a newer version's) is kept in the
            // log and folds nothing; it is counted, and the first named (``ModelStates/unread()``).
            let (event, number): (ChronicleModel.Event, Int)
            switch entry.read {
            case .success(let read):
                (event, number) = read
            case .failure(let error):
                unread += 1
                if firstUnread == nil { firstUnread = "event \(entry.position): \(error.description)" }
                continue
            }
            let key = Key(entity: number, id: event.id)
            let (previous, slot) = try load(key)
            let position = entry.position
            let rank = ChronicleModel.EventRank(upstream: upstream[position], position: position)
            if rank.upstream == nil {
                Self.apply(event, place: number, rank: rank, by: fold, to: &touched.values[slot])
                touched.values[slot].lastApplied = position
                continue
            }
            // A pulled event: it may overrule this replica's writes, and rank before events folded already.
            let stream = ModelChunk.stream(of: entry, in: model)
            if let server = rank.upstream, !entry.isOwn, let own = firstOwn[stream], own < position,
               let recorded = try owner.log.event(at: position) {
                let before = try events(of: stream).filter { $0.position < position }
                let servers = try owner.log.upstreamPositions(of: before.map(\.position))
                for conflict in ModelConflicts.of(event, recorded, server: server, before: before, upstream: servers,
                                                  deviceID: owner.log.deviceID, reader: reader) {
                    conflicts.append((position, conflict))
                }
            }
            if previous > 0, rank < (try self.rank(of: previous)) {
                try refold(key, stream: stream, through: position)
            } else {
                Self.apply(event, place: number, rank: rank, by: fold, to: &touched.values[slot])
                touched.values[slot].lastApplied = position
            }
        }
    }

    /// What this batch folded, for the next batch to take over (``init(rebuildingAfter:states:txn:tables:)``).
    var handover: Handover { Handover(touched: touched) }

    /// Lets go of the batch before this one, once this one has folded.
    mutating func releasePrevious() { previous = nil }

    /// Moves a batch folded in a read transaction to `txn`, where ``finish()`` writes it into
    /// `tables` (the same tables, as that transaction opens them).
    mutating func move(to txn: Transaction, _ tables: ModelStateTables) {
        self.txn = txn
        self.tables = tables
        ceilings = Array(repeating: nil, count: owner.model.entities.count)
    }

    /// Writes every entity the batch changed, with its index entries; returns them.
    func finish() throws -> [(entity: String, id: UUID)] {
        // The keys are sorted, not the entries: they are small and hold no references.
        let keys = touched.keys.sorted()
        try writeConflicts()
        if writesStatesOnly {
            try writeStates(keys)
            return []
        }
        let entries = keys.map { (key: $0, value: touched[$0]!) }
        // The first changes are the entries', in their order; then the children they hide or show.
        let showing = try showingChanges(entries)
        try moveShares(showing)
        try writeHiddenFlags(of: showing[entries.count...])
        var changed: [(entity: String, id: UUID)] = []
        var puts = [AscendingPuts?](repeating: nil, count: tables.live.count)
        // The index entries moved, written sorted when every entity is: appended where they pass
        // the stored ones, near each other where not.
        var indexes = IndexMoves(unique: IndexChanges(txn: txn, database: tables.unique),
                                 children: IndexChanges(txn: txn, database: tables.children),
                                 values: IndexChanges(txn: txn, database: tables.values))
        for (index, (key, entry)) in entries.enumerated() {
            let before = entry.before
            let change = showing[index]
            let after = stored(change.after, of: key, entry, isHidden: change.hiddenAfter)
            let stateChanged = after?.state != before?.state
            guard stateChanged || after != before else { continue }
            try write(after, over: before, as: key, puts: &puts)
            let entity = owner.model.entities[key.entity]
            reindex(entity, number: key.entity, before: before?.state, after: after?.state, into: &indexes)
            if stateChanged { changed.append((entity.name, key.id)) }
        }
        for index in [indexes.unique, indexes.children, indexes.values] { try index.write() }
        return changed
    }

    /// ``finish()`` of a batch that writes the entities' states alone (none hidden).
    /// Each entity's bytes are made from what the batch knows of it, as they are read (no
    /// copy of it, no ``StoredEntity`` made).
    private func writeStates(_ keys: [Key]) throws {
        var puts = [AscendingPuts?](repeating: nil, count: tables.live.count)
        for key in keys {
            guard let slot = touched.index(forKey: key) else { continue }
            try writeState(touched.values[slot], as: key, puts: &puts)
        }
    }

    /// Writes entity `key`, touched as `entry` says, as a batch writing states alone does.
    private func writeState(_ entry: Touched, as key: Key, puts: inout [AscendingPuts?]) throws {
        // Every entity a batch touched had an event folded in: it is written (the same bytes
        // again where the event changed nothing).
        guard let state = entry.state else {
            if let wasDeleted = entry.wasDeleted { try tables.remove(txn, key.entity, key.id, wasDeleted: wasDeleted) }
            return
        }
        let keepsRanks = keepsUniqueWrites[key.entity]
        let bytes = StoredEntity.encoded(state, isHidden: false, lastApplied: entry.lastApplied, layout: owner.layouts[key.entity]) {
            keepsRanks ? entry.uniqueRanks[$0]?.position : nil
        }
        var entityPuts = try puts[key.entity] ?? AscendingPuts(txn: txn, database: tables.live[key.entity])
        try tables.write(txn, key.entity, key.id, bytes: bytes, isDeleted: state.isDeleted,
                         wasDeleted: entry.wasDeleted, puts: &entityPuts)
        puts[key.entity] = entityPuts
    }

    /// Writes what pulled events overruled, as the todo app's conflicts are kept: under the
    /// pulled event's position, then its conflict's number.
    private func writeConflicts() throws {
        var index: [UInt64: UInt16] = [:]
        for (position, conflict) in conflicts {
            let at = index[position, default: 0]
            index[position] = at + 1
            var key: [UInt8] = []
            key.appendBigEndian(position)
            key.appendBigEndian(at)
            try txn.put(tables.conflicts, key: key, value: StoredConflict.encode(conflict))
        }
    }

    /// Entity `key`, touched as `entry` says and folded to `state`, as the batch stores it.
    private func stored(_ state: ChronicleModel.EntityState?, of key: Key, _ entry: Touched, isHidden: Bool) -> StoredEntity? {
        Self.stored(state, lastApplied: entry.lastApplied, uniqueRanks: entry.uniqueRanks,
                    keepsUniqueWrites: keepsUniqueWrites[key.entity], isHidden: isHidden)
    }

    /// An entity folded to `state` (nil: nothing stored), last applied at `lastApplied`, its
    /// unique fields written at `uniqueRanks`, as a batch stores it.
    private static func stored(_ state: ChronicleModel.EntityState?, lastApplied: UInt64, uniqueRanks: [String: ChronicleModel.EventRank],
                               keepsUniqueWrites: Bool, isHidden: Bool) -> StoredEntity? {
        state.map { state in
            // Entities with no unique field have no ranks of unique writes to keep.
            StoredEntity(state: state, isHidden: isHidden, lastApplied: lastApplied,
                         uniqueWrites: keepsUniqueWrites ? uniqueRanks.mapValues(\.position) : [:])
        }
    }

    /// Stores `after` as entity `key` where `before` was (nil: removes it), a live one through
    /// its entity's puts of `puts`: in key order, new ids, which rise with time, are appended.
    private func write(_ after: StoredEntity?, over before: StoredEntity?, as key: Key, puts: inout [AscendingPuts?]) throws {
        if let after {
            var entityPuts = try puts[key.entity] ?? AscendingPuts(txn: txn, database: tables.live[key.entity])
            try tables.write(txn, key.entity, key.id, bytes: after.encoded(layout: owner.layouts[key.entity]),
                             isDeleted: after.state.isDeleted, wasDeleted: before?.state.isDeleted, puts: &entityPuts)
            puts[key.entity] = entityPuts
        } else if let before {
            try tables.remove(txn, key.entity, key.id, wasDeleted: before.state.isDeleted)
        }
    }

    // MARK: - Folding

    /// Puts entity `key` in ``touched``, as stored, the first time the batch meets it; returns
    /// the position of the last event folded into it (0: none), and where ``touched`` holds it.
    private mutating func load(_ key: Key) throws -> (lastApplied: UInt64, slot: [Key: Touched].Index) {
        if let slot = touched.index(forKey: key) { return (touched.values[slot].lastApplied, slot) }
        if let previous, let handed = previous.touched[key] {
            // Folded by the batch before, whose write may not have committed: taken as that
            // write stores it (unique ranks by position alone; nothing stored when nothing folded).
            let stored = Self.stored(handed.state, lastApplied: handed.lastApplied, uniqueRanks: handed.uniqueRanks,
                                     keepsUniqueWrites: keepsUniqueWrites[key.entity], isHidden: false)
            return insert(Touched(stored: stored, keepingBefore: !writesStatesOnly), as: key)
        }
        let stored = try mayBeStored(key)
            ? tables.storedBytes(txn, key.entity, key.id).map {
                try StoredEntity.decode($0, id: key.id, entity: owner.entityNames[key.entity], layout: owner.layouts[key.entity])
            } : nil
        return insert(Touched(stored: stored, keepingBefore: !writesStatesOnly), as: key)
    }

    /// Adds what the batch knows of entity `key`, first met; returns ``load(_:)``'s answer.
    private mutating func insert(_ entry: Touched, as key: Key) -> (lastApplied: UInt64, slot: [Key: Touched].Index) {
        touched[key] = entry
        return (entry.lastApplied, touched.index(forKey: key)!)
    }

    /// Folds `event`, of the entity at `place`, into what the batch knows of it, by `fold`.
    private static func apply(_ event: ChronicleModel.Event, place: Int, rank: ChronicleModel.EventRank,
                              by fold: ChronicleModel.StateFold, to entry: inout Touched) {
        fold.apply(event, place: place, rank: rank, to: &entry.state, uniqueRanks: &entry.uniqueRanks)
    }

    /// Whether entity `key` may be stored: false when its id sorts after every id stored of its
    /// entity, live or deleted.
    private mutating func mayBeStored(_ key: Key) throws -> Bool {
        if ceilings[key.entity] == nil {
            ceilings[key.entity] = StoredIDCeiling(txn: txn, tables: [
                StoredIDCeiling.Table(database: tables.live[key.entity], prefix: []),
                StoredIDCeiling.Table(database: tables.deleted, prefix: ModelStateKeys.prefix(key.entity)),
            ])
        }
        return try ceilings[key.entity]!.mayHold(key.id)
    }

    /// Where the merge ranks the event at `position`, as known now.
    private func rank(of position: UInt64) throws -> ChronicleModel.EventRank {
        let server = try upstream[position] ?? owner.log.upstreamPosition(of: position)
        return ChronicleModel.EventRank(upstream: server, position: position)
    }

    /// Folds entity `key` again from its stream's events up to `position`, in the merge's order.
    private mutating func refold(_ key: Key, stream: String, through position: UInt64) throws {
        let entity = owner.model.entities[key.entity]
        let ranked = try ModelStates.ranked(try events(of: stream).filter { $0.position <= position }, of: entity.name, key.id,
                                            log: owner.log, reader: reader)
        touched[key]!.state = nil
        touched[key]!.uniqueRanks = [:]
        for (rank, _, event) in ranked { Self.apply(event, place: key.entity, rank: rank, by: fold, to: &touched[key]!) }
        touched[key]!.lastApplied = ranked.last?.rank.position ?? 0
    }

    /// The events of `stream` in the log, read once per batch: the batch's own are in the log
    /// already, and later appends come after every position it asks about.
    private mutating func events(of stream: String) throws -> [RecordedEvent] {
        if let known = streams[stream] { return known }
        let read = try owner.log.read(stream: stream)
        streams[stream] = read
        return read
    }

    // MARK: - Indexes

    /// Moves the entity's entries in `unique` (live entities' unique keys), `values` (live
    /// entities' indexed values) and `children` (every entity, by the parent each reference
    /// names and by each member of each set) from `before` to `after`.
    private func reindex(_ entity: ChronicleModel.Entity, number: Int,
                         before: ChronicleModel.EntityState?, after: ChronicleModel.EntityState?, into indexes: inout IndexMoves) {
        let id = before?.id ?? after?.id
        guard let id else { return }
        let isDeletedAlike = before?.isDeleted == after?.isDeleted
        for field in owner.indexPlans[number] {
            // Every entry of a field comes from its value and whether the entity is deleted.
            if isDeletedAlike, let before, let after, before.values.isLaid(as: owner.layouts[number]),
               after.values.isLaid(as: owner.layouts[number]), before.values.holdsSame(at: field.place, as: after.values) { continue }
            if let uniqueness = field.uniqueness {
                let old = Self.uniqueEntry(before, field: field.name, under: uniqueness, entity: number, index: field.place)
                let new = Self.uniqueEntry(after, field: field.name, under: uniqueness, entity: number, index: field.place)
                move(&indexes.unique, from: old, to: new, id: id)
            }
            if field.isValueIndexed {
                let old = Self.valueEntry(before, field: field.name, entity: number, index: field.place)
                let new = Self.valueEntry(after, field: field.name, entity: number, index: field.place)
                move(&indexes.values, from: old, to: new, id: id)
            }
            if field.isReference {
                let old = Self.childrenEntry(before, field: field, entity: number)
                let new = Self.childrenEntry(after, field: field, entity: number)
                move(&indexes.children, from: old, to: new, id: id)
            }
            if field.isSet {
                let old = Self.memberEntries(before, field: field, entity: number)
                let new = Self.memberEntries(after, field: field, entity: number)
                for entry in old where !new.contains(entry) { move(&indexes.children, from: entry, to: nil, id: id) }
                for entry in new where !old.contains(entry) { move(&indexes.children, from: nil, to: entry, id: id) }
            }
        }
    }

    /// An entity's entry under the parent its reference `field` names, deleted or not (a
    /// restoration finds it there); nil when it names none.
    static func childrenEntry(_ state: ChronicleModel.EntityState?, field: IndexedField, entity: Int) -> [UInt8]? {
        state?.reference(at: field.place, named: field.name).map { ModelStateKeys.childrenPrefix(entity, field.place, parent: $0) }
    }

    /// Calls `body` with each of an entity's entries in `children` under what field `field`
    /// names (a reference's parent, each member of a set), its own id not yet appended.
    static func forEachChildrenEntry(_ state: ChronicleModel.EntityState?, field: IndexedField, entity: Int,
                                     _ body: ([UInt8]) -> Void) {
        if field.isSet {
            for entry in memberEntries(state, field: field, entity: entity) { body(entry) }
        } else if field.isReference, let entry = childrenEntry(state, field: field, entity: entity) {
            body(entry)
        }
    }

    /// An entity's entries under each member of its set `field`, deleted or not, as a
    /// reference's under its parent (``childrenEntry(_:field:entity:)``).
    static func memberEntries(_ state: ChronicleModel.EntityState?, field: IndexedField, entity: Int) -> [[UInt8]] {
        guard let state, case .ids(let members)? = state.values.value(at: field.place, named: field.name) else { return [] }
        return members.map { ModelStateKeys.childrenPrefix(entity, field.place, parent: $0) }
    }

    static func uniqueEntry(_ state: ChronicleModel.EntityState?, field: String, under uniqueness: ChronicleModel.Uniqueness,
                                    entity: Int, index: Int) -> [UInt8]? {
        guard let state, !state.isDeleted, case .text(let text)? = state.values.value(at: index, named: field) else { return nil }
        return ModelStateKeys.uniquePrefix(entity, index, key: uniqueness.key(text))
    }

    /// A live entity's indexed value (a deleted one is in no query's result).
    static func valueEntry(_ state: ChronicleModel.EntityState?, field: String, entity: Int, index: Int) -> [UInt8]? {
        guard let state, !state.isDeleted, let value = state.values.value(at: index, named: field) else { return nil }
        return ModelStateKeys.valuePrefix(entity, index, value)
    }

    private func move(_ index: inout IndexChanges, from old: [UInt8]?, to new: [UInt8]?, id: UUID) {
        guard old != new else { return }
        if var old {
            ModelStateKeys.append(id, to: &old)
            index.remove(old)
        }
        if var new {
            ModelStateKeys.append(id, to: &new)
            index.add(new)
        }
    }
}

/// The entries a batch's entities move in each index of the states. Each entity is reindexed
/// once, from what was stored to what is written, and an entry holds its entity's id: no
/// entry is both removed and added (``IndexChanges``).
private struct IndexMoves {
    var unique: IndexChanges
    var children: IndexChanges
    var values: IndexChanges
}

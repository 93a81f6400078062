import ChronicleSchema
import ChronicleLog
import Foundation
import ChronicleLMDB
import Synchronization

/// The stored read model of any declared model: every entity's current state, with the
/// indexes its rules and queries read (unique values, children by parent, indexed values)
/// and each aggregate's rows, kept in an LMDB environment
/// of its own and brought up to the log's head on demand.
///
/// ```swift
/// let states = try ModelStates(path: store + "/entities", model: notebook, log: log)
/// try states.catchUp()
/// let notes = try states.shown("Note")
/// ```
///
/// The fold is ``ChronicleModel/Snapshot``'s, applied in the merge's order
/// (``ChronicleModel/EventRank``): events are folded as they come in the log, but for a
/// pulled event that ranks before one already folded into its entity (this replica's own
/// write, not given back by the server yet): that entity is folded again from its stream in
/// the merge's order. So the stored states equal ``ModelReplay``'s fold of the whole log.
///
/// The model's record is stored with the states: opened with another model (or another
/// version of this layout), the states are dropped and folded again from the log's start.
/// Any number of processes may catch the same folder up: each batch reads its checkpoint
/// in its own write transaction.
public final class ModelStates: Sendable {
    /// The model folded by.
    public let model: ChronicleModel
    let log: EventLog
    let environment: Environment
    /// The two sets of tables (blue/green): readers use the active one, a rebuild fills the other.
    let slots: [ModelStateTables]
    /// What the slots share: the model folded by (`model`), the active slot (`active`, 0 when
    /// absent) and the rebuild filling the other (`rebuild`, its token).
    let shared: Database
    /// Each entity's place in the model (its number in keys).
    let entityNumbers: [String: Int]
    /// Per entity, its fields' names in order: the layout of the values of the states it decodes.
    let layouts: [[String]]
    /// Per entity, its name (what its states are of).
    let entityNames: [String]
    /// Per entity, the aggregates of it (by their place in the model) and how each reads a share.
    let sharePlans: [[(aggregate: Int, plan: StoredAggregateRow.SharePlan)]]
    /// Per entity, the fields whose values are indexed: declared so, or grouped by an aggregate.
    let indexedFields: [Set<String>]
    /// Per entity, the fields its index entries come from (``IndexedField``).
    let indexPlans: [[IndexedField]]
    /// The rule of what is shown, planned once.
    let showing: ChronicleModel.ShowingRule
    /// Per entity, what the rules of what is shown look at with each one: its parents whose
    /// deletion hides it, and its sets' members (field, its place, target entity's place,
    /// whether a set).
    let followed: [[(field: String, fieldIndex: Int, targetIndex: Int, isSet: Bool)]]
    /// Per aggregate, how reads show its rows.
    let rowShapes: [StoredAggregateRow.Shape]
    /// Per entity, the places of its fields that hold unique values.
    let uniqueFields: [[Int]]
    /// Per entity, its sets: each one's field's place and its members' entity's place.
    let setFields: [[(index: Int, target: Int)]]
    /// Per entity, the references to it whose parent's deletion hides the referring entity
    /// (the referring entity's place, the field's place).
    let hidingReferences: [[(entity: Int, field: Int)]]
    /// Told of what each catch-up in this process changed.
    private let changeHandler = Mutex<ChangeHandler?>(nil)
    /// The active slot as the last read of a known snapshot found it, with that snapshot's
    /// id: (id + 1) << 1 | slot; 0 before any.
    private let activeSlotSeen = Atomic<UInt64>(0)

    /// Told, after each batch a catch-up in this process committed, which entities it changed
    /// (by entity name and id), the position the batch folded after (where the states were
    /// when it began: past what this process last folded when another process folded
    /// meanwhile) and the position the states reached.
    public typealias ChangeHandler = @Sendable (_ changed: [(entity: String, id: UUID)], _ after: UInt64, _ position: UInt64) -> Void

    /// The version of the fold and of the stored layout: bump it when either changes.
    static let layoutVersion: UInt32 = 10
    /// Events folded per write transaction while following the log.
    static let batchSize = 2048
    /// Events folded per write transaction when far behind (a rebuild, a large pull): fewer
    /// commits, each page of the indexes written once for many events.
    static let largeBatchSize = 65_536
    /// Events per chunk read ahead when far behind.
    static let readAheadChunk = 4096

    /// Opens (creating when missing) the read model at `path` for `model`, over `log`.
    /// - throws: ``ProjectionError/cannotOpen(path:reason:)`` when LMDB refuses the folder.
    public init(path: String, model: ChronicleModel, log: EventLog, noSync: Bool = false) throws {
        self.model = model
        self.log = log
        entityNumbers = Dictionary(uniqueKeysWithValues: model.entities.enumerated().map { ($1.name, $0) })
        layouts = model.entities.map { $0.fields.map(\.name) }
        entityNames = model.entities.map(\.name)
        sharePlans = model.entities.map { entity in
            model.aggregates.enumerated().filter { $1.entity == entity.name }.map { ($0, StoredAggregateRow.SharePlan($1, of: entity)) }
        }
        indexedFields = model.entities.map { Self.indexedFields(of: $0, in: model) }
        indexPlans = zip(model.entities, indexedFields).map { IndexedField.plan(of: $0, valueIndexed: $1) }
        hidingReferences = model.entities.map { target in
            model.entities.enumerated().flatMap { number, entity in
                entity.fields.enumerated().compactMap { index, field in
                    if case .reference(target.name) = field.type, field.onParentDeletion != nil { (number, index) } else { nil }
                }
            }
        }
        showing = ChronicleModel.ShowingRule(model)
        followed = model.entities.map { entity in
            entity.fields.enumerated().compactMap { index, field in
                guard let target = field.type.target.flatMap({ target in model.entities.firstIndex { $0.name == target } }) else { return nil }
                switch field.type {
                case .reference where field.onParentDeletion != nil: return (field.name, index, target, false)
                case .references: return (field.name, index, target, true)
                default: return nil
                }
            }
        }
        rowShapes = model.aggregates.map { StoredAggregateRow.Shape($0, in: model.entity(named: $0.entity)) }
        uniqueFields = model.entities.map { entity in entity.fields.indices.filter { entity.fields[$0].unique != nil } }
        setFields = followed.map { $0.filter(\.isSet).map { (index: $0.fieldIndex, target: $0.targetIndex) } }
        do {
            environment = try Environment(path: path, options: .init(mapSize: 16 << 20, maxDatabases: Self.maxDatabases(model),
                                                                     noSync: noSync))
            let fingerprint = Self.fingerprint(of: model)
            (slots, shared) = try environment.write { txn in
                let slots = try [0, 1].map { try ModelStateTables(txn, slot: $0, entities: model.entities.count) }
                let shared = try txn.openDatabase(named: "slots")
                if try txn.get(shared, key: Array("model".utf8)).map(Array.init) != fingerprint {
                    for db in slots.flatMap({ $0.states + [$0.meta] }) + [shared] { try txn.clear(db) }
                    try Self.clearFormerTables(txn, keeping: model.entities.count)
                    try txn.put(shared, key: Array("model".utf8), value: fingerprint)
                }
                return (slots, shared)
            }
        } catch let error as LMDBError {
            throw ProjectionError.cannotOpen(path: path, reason: error.description)
        }
    }

    /// The position of the last event folded in.
    public func position() throws -> UInt64 {
        try standing().position
    }

    /// Sets (or, with nil, removes) what is told of the changes catch-ups in this process make.
    public func onChange(_ handler: ChangeHandler?) {
        changeHandler.withLock { $0 = handler }
    }

    /// Folds every event after the checkpoint, up to the log's head as it is now; returns
    /// the position reached. States ahead of the log (copied from a later state of the store,
    /// beside an older log) are never served: they are rebuilt from the log.
    /// - parameter progress: told, after each of the catch-up's write transactions, how many
    ///   events it folded so far and how many it folds in all.
    @discardableResult
    public func catchUp(progress: (@Sendable (_ done: UInt64, _ total: UInt64) -> Void)? = nil) throws -> UInt64 {
        // Caught up already (the usual case for a read): no write transaction. The head is
        // read after the checkpoint: a checkpoint past it means the states are ahead of this log.
        let folded = try position()
        let head = try log.head()
        if folded == head { return folded }
        if folded > head { return try rebuild { progress?(min($0, head), head) } }
        if head - folded > UInt64(Self.batchSize) {
            return try catchUp(from: folded, to: head, into: .active) { progress?($0 - folded, head - folded) }
        }
        return try foldTransactions(to: head, into: .active, progress: progress.map { report in { report($0 - folded, head - folded) } },
                                    foldNear)
    }

    /// Whether the states are folded past the log's head: copied from a later state of the
    /// store beside an older log (``catchUp(progress:)`` rebuilds them).
    public func isAheadOfLog() throws -> Bool {
        let folded = try position()
        return folded > (try log.head())
    }

    /// Copies the states, in one read transaction, into the folder `path` (a backup's).
    public func copy(to path: String) throws {
        try ProjectionError.mappingStorage { try environment.copy(to: path) }
    }

    /// Folds the events after `checkpoint` into `batch`, ``batchSize`` at most (a catch-up near
    /// the head); returns the position of the last.
    private func foldNear(_ batch: inout ModelStatesBatch, _ checkpoint: UInt64) throws -> UInt64 {
        let stored = try log.readStored(after: checkpoint, limit: Self.batchSize, maxBytes: EventLog.defaultBatchBytes)
        guard let chunk = try ModelChunk(stored, reader: batch.reader, deviceID: log.deviceID) else { return checkpoint }
        try batch.fold(chunk)
        return chunk.last
    }

    /// Catches up from far behind (a rebuild, a large pull): the log is read and its events read
    /// by the model up to ``ChunkReadAheadDefaults/depth`` chunks ahead, on a second thread, while
    /// this one folds them, ``largeBatchSize`` events per write transaction.
    private func catchUp(from start: UInt64, to head: UInt64, into target: FoldTarget = .active,
                         progress: ((UInt64) -> Void)? = nil) throws -> UInt64 {
        let (reader, deviceID) = (ChronicleModel.EventReader(model), log.deviceID)
        let source = ChunkReadAhead(log: log, chunkSize: Self.readAheadChunk, after: start) { stored in
            try ModelChunk(stored, reader: reader, deviceID: deviceID)
        }
        defer { source.stop() }
        // Where the read-ahead has read to. A transaction folds on from the checkpoint: when it
        // differs (another process folded past it, or LMDB aborted a transaction to grow the map
        // and it runs again, its chunks taken already), the read-ahead starts again there.
        var readTo = start
        // The map grown before each transaction by what the ones before grew it, so that LMDB
        // seldom aborts one to grow it (a rebuild's first transaction still may).
        return try foldTransactions(to: head, into: target, foreseeing: MapGrowthForecast(), progress: progress) { batch, checkpoint in
            if checkpoint != readTo {
                source.restart(after: checkpoint)
                readTo = checkpoint
            }
            var (events, bytes) = (0, 0)
            while events < Self.largeBatchSize && bytes < EventLog.defaultBatchBytes, let chunk = try source.next() {
                try batch.fold(chunk)
                events += chunk.entries.count
                bytes += chunk.bytes
                readTo = chunk.last
            }
            return readTo
        }
    }

    /// Runs write transactions until the states reach `head` (or the log ends): each hands
    /// `fold` a batch and the checkpoint it found, and writes what `fold` folded in, up to the
    /// position it returns (the checkpoint: nothing). The change handler is told after each.
    /// With `forecast`, the map is grown before each transaction (``MapGrowthForecast``).
    private func foldTransactions(to head: UInt64, into target: FoldTarget, foreseeing forecast: MapGrowthForecast? = nil,
                                  progress: ((UInt64) -> Void)? = nil,
                                  _ fold: (inout ModelStatesBatch, _ checkpoint: UInt64) throws -> UInt64) throws -> UInt64 {
        while true {
            let (after, reached, more, changed) = try write(foreseeing: forecast) { txn -> (UInt64, UInt64, Bool, [(entity: String, id: UUID)]) in
                let (checkpoint, last, changed) = try foldTransaction(txn, into: try target.tables(of: self, txn), fold)
                return (checkpoint, last, last > checkpoint && last < head, changed)
            }
            switch target {
            case .active:
                if !changed.isEmpty || more, let handler = changeHandler.withLock({ $0 }) { handler(changed, after, reached) }
                progress?(reached)
            case .rebuilding(_, _, let progress):
                // Readers see none of it: the change handler hears of the swap alone (its followers, by the active slot).
                progress(reached)
            }
            if !more { return reached }
        }
    }

    /// One write transaction's fold into `tables`: `fold` is handed a batch and the checkpoint,
    /// and what it folded is written, up to the position it returns. Returns the checkpoint
    /// found, the position reached and the entities changed.
    private func foldTransaction(_ txn: Transaction, into tables: ModelStateTables,
                                 _ fold: (inout ModelStatesBatch, _ checkpoint: UInt64) throws -> UInt64) throws
        -> (checkpoint: UInt64, reached: UInt64, changed: [(entity: String, id: UUID)]) {
        let checkpoint = try Self.checkpoint(txn, tables.meta)
        var batch = ModelStatesBatch(states: self, txn: txn, tables: tables)
        let last = try fold(&batch, checkpoint)
        guard last > checkpoint else { return (checkpoint, checkpoint, []) }
        let changed = try batch.finish()
        try Self.record(batch, reaching: last, txn, tables.meta)
        return (checkpoint, last, changed)
    }

    /// Runs `body` in a write transaction; with `forecast`, the map is grown before it by what
    /// the transactions before it grew it (``MapGrowthForecast``), and its growth noted.
    func write<T>(foreseeing forecast: MapGrowthForecast?, _ body: (Transaction) throws -> T) throws -> T {
        try ProjectionError.mappingStorage {
            if let forecast { try environment.ensureRoom(for: forecast.room) }
            let used = forecast.map { _ in environment.usedSize() }
            defer { if let forecast, let used { forecast.record(from: used, to: environment.usedSize()) } }
            return try environment.write(body)
        }
    }

    /// Notes in `meta`, after `batch` is written, the events it could not read and that the
    /// states reach `last`.
    static func record(_ batch: ModelStatesBatch, reaching last: UInt64, _ txn: Transaction, _ meta: Database) throws {
        try count(unread: batch.unread, first: batch.firstUnread, txn, meta)
        try txn.put(meta, key: Array("position".utf8), value: bytes(last))
    }

    /// Folds the whole log again into the other set of tables while readers and catch-ups go
    /// on with the active one, then, in one write transaction, brings it level with the log
    /// and makes it the active one (blue/green); returns the position reached.
    ///
    /// A rebuild that dies halfway (even by SIGKILL) leaves the active states as they were;
    /// the next rebuild empties what it left. A rebuild started while another runs replaces it.
    /// - parameter progress: told, after each of the rebuild's write transactions, the position
    ///   its states reached.
    /// - throws: ``ProjectionError/supersededEntities`` when a newer rebuild replaced this one.
    @discardableResult
    public func rebuild(progress: @escaping @Sendable (_ position: UInt64) -> Void = { _ in }) throws -> UInt64 {
        try rebuild(eventsPerTransaction: Self.largeBatchSize, progress: progress)
    }

    /// ``rebuild(progress:)`` folding the log from far behind (more than `eventsPerTransaction`
    /// or ``batchSize`` events, the fewer) on two threads, `eventsPerTransaction` events per
    /// write transaction at most, then deriving the indexes and rows in `derivationParts`
    /// parts at once, `entitiesPerRound` entities a part at a time (``StatesDerivation``).
    @discardableResult
    func rebuild(eventsPerTransaction: Int, derivationParts: Int = ProcessInfo.processInfo.activeProcessorCount,
                 entitiesPerRound: Int = StatesDerivation.entitiesPerRound,
                 progress: @escaping @Sendable (_ position: UInt64) -> Void = { _ in }) throws -> UInt64 {
        let token = withUnsafeBytes(of: UUID().uuid) { Array($0) }
        let slot = try ProjectionError.mappingStorage {
            try environment.write { txn in
                let other = 1 - (try activeSlot(txn))
                for db in slots[other].states + [slots[other].meta] { try txn.clear(db) }
                try txn.put(shared, key: Array("rebuild".utf8), value: token)
                return other
            }
        }
        let target = FoldTarget.rebuilding(slot: slot, token: token, progress: progress)
        // Far behind first, in many transactions; then, in one, level with the log and swapped in.
        let head = try log.head()
        if head > UInt64(min(Self.batchSize, eventsPerTransaction)) {
            _ = try pipelinedCatchUp(from: 0, to: head, into: target, eventsPerTransaction: eventsPerTransaction,
                                     derivation: (derivationParts, entitiesPerRound))
        }
        while true {
            _ = try foldTransactions(to: try log.head(), into: target, foldNear)
            let swapped = try ProjectionError.mappingStorage {
                try environment.write { txn -> UInt64? in
                    let (_, reached, _) = try foldTransaction(txn, into: try target.tables(of: self, txn), foldNear)
                    // Appends went on meanwhile: what is left is folded before the swap, in a transaction of its own.
                    guard reached >= (try log.head()) else { return nil }
                    try txn.put(shared, key: Self.activeKey, value: [UInt8(slot)])
                    _ = try txn.delete(shared, key: Array("rebuild".utf8))
                    let old = slots[1 - slot]
                    for db in old.states + [old.meta] { try txn.clear(db) }
                    return reached
                }
            }
            if let swapped {
                progress(swapped)
                return swapped
            }
        }
    }

    /// Which tables a catch-up's transactions fold into.
    enum FoldTarget {
        /// The active slot's: those readers read.
        case active
        /// Slot `slot`, which the rebuild holding `token` fills, telling `progress` the position
        /// each of its transactions reached.
        case rebuilding(slot: Int, token: [UInt8], progress: @Sendable (UInt64) -> Void)

        /// The tables, as of `txn`.
        /// - throws: ``ProjectionError/supersededEntities`` when another rebuild took the slot over.
        func tables(of states: ModelStates, _ txn: Transaction) throws -> ModelStateTables {
            switch self {
            case .active:
                return try states.tables(txn)
            case .rebuilding(let slot, let token, _):
                guard let held = try txn.get(states.shared, key: Array("rebuild".utf8)), Array(held) == token,
                      try states.activeSlot(txn) != slot else { throw ProjectionError.supersededEntities }
                return states.slots[slot]
            }
        }
    }

    /// The position the states are folded to and the slot readers use (it changes when a
    /// rebuild, in any process, swaps its states in), read in one transaction: a follower's
    /// poll, which tells whether another process folded or swapped.
    func standing() throws -> (position: UInt64, slot: Int) {
        try ProjectionError.mappingStorage {
            try environment.read { txn in
                let slot = try activeSlot(txn)
                return (try Self.checkpoint(txn, slots[slot].meta), slot)
            }
        }
    }

    /// The slot readers use, as of `txn`. Kept for the reads of one snapshot (most reads
    /// between two commits): it changes only when a rebuild swaps its states in.
    func activeSlot(_ txn: Transaction) throws -> Int {
        guard let id = txn.snapshotID else { return try Self.activeSlot(txn, shared: shared) }
        let seen = activeSlotSeen.load(ordering: .relaxed)
        if seen >> 1 == id &+ 1 { return Int(seen & 1) }
        let slot = try Self.activeSlot(txn, shared: shared)
        activeSlotSeen.store((id &+ 1) << 1 | UInt64(slot), ordering: .relaxed)
        return slot
    }

    /// The key in `shared` under which the active slot is kept.
    static let activeKey = Array("active".utf8)

    /// The slot readers use, as `shared` (the `slots` table) says in `txn`: 0 unless it says 1.
    static func activeSlot(_ txn: Transaction, shared: Database) throws -> Int {
        guard let bytes = try txn.get(shared, key: activeKey), bytes.count == 1 else { return 0 }
        return bytes[0] == 1 ? 1 : 0
    }

    /// The tables readers use, as of `txn`.
    func tables(_ txn: Transaction) throws -> ModelStateTables {
        slots[try activeSlot(txn)]
    }

    /// The events folded so far that the model cannot read (another app's, or a newer
    /// version's: kept in the log, shown nowhere), and what was wrong with the first.
    public func unread() throws -> (count: Int, first: String?) {
        try ProjectionError.mappingStorage {
            try environment.read { txn in
                let meta = try tables(txn).meta
                let count = try txn.get(meta, key: Array("unread".utf8)).map { $0.count == 8 ? Int(UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self))) : 0 } ?? 0
                let first = try txn.get(meta, key: Array("unread-first".utf8)).map { String(decoding: $0, as: UTF8.self) }
                return (count, first)
            }
        }
    }

    private static func count(unread: Int, first: String?, _ txn: Transaction, _ meta: Database) throws {
        guard unread > 0 else { return }
        let before = try txn.get(meta, key: Array("unread".utf8)).map { $0.count == 8 ? $0.loadUnaligned(as: UInt64.self) : 0 } ?? 0
        try txn.put(meta, key: Array("unread".utf8), value: bytes(UInt64(littleEndian: before) + UInt64(unread)))
        if let first, try txn.get(meta, key: Array("unread-first".utf8)) == nil {
            try txn.put(meta, key: Array("unread-first".utf8), value: Array(first.utf8))
        }
    }

    static func checkpoint(_ txn: Transaction, _ meta: Database) throws -> UInt64 {
        guard let bytes = try txn.get(meta, key: Array("position".utf8)) else { return 0 }
        guard bytes.count == 8 else { throw ProjectionError.corruptModel("the entities' checkpoint holds \(bytes.count) bytes") }
        return UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
    }

    static func bytes(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// The fields of `entity` whose values are indexed: declared so, or grouped by an aggregate.
    static func indexedFields(of entity: ChronicleModel.Entity, in model: ChronicleModel) -> Set<String> {
        Set(entity.fields.filter(\.isIndexed).map(\.name)).union(model.aggregates.filter { $0.entity == entity.name }.map(\.groupedBy))
    }

    /// The tables an environment of `model` may open: its own, and as many as a model of
    /// another shape left, which are emptied.
    static func maxDatabases(_ model: ChronicleModel) -> UInt32 {
        UInt32(2 * (model.entities.count + 7) + 1 + formerTablesCleared)
    }

    /// At most this many tables another model (or layout) left are emptied on open.
    private static let formerTablesCleared = 64

    /// Empties what an earlier layout or a model with more entities left: a `states` table
    /// (layout 5 and before) and live tables past the model's. Emptied, not dropped: another
    /// process may still read them.
    private static func clearFormerTables(_ txn: Transaction, keeping count: Int) throws {
        var names: [String] = []
        try txn.scan(try txn.openDatabase(named: nil), prefix: []) { key, _ in
            let name = String(decoding: key, as: UTF8.self)
            if name == "states" { names.append(name) }
            let number = name.hasPrefix("live.") ? Int(name.dropFirst(5).split(separator: "/").first ?? "") : nil
            if let number, number >= count { names.append(name) }
        }
        for name in names.prefix(formerTablesCleared) { try txn.clear(try txn.openDatabase(named: name, create: false)) }
    }

    /// What the states were folded by: the layout's version and the model's record.
    static func fingerprint(of model: ChronicleModel) -> [UInt8] {
        bytes(UInt64(layoutVersion)) + Array(model.record())
    }
}

extension ProjectionError {
    /// Runs `body`, handing on a ``ProjectionError`` and wrapping an LMDB error.
    static func mappingStorage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LMDBError {
            throw ProjectionError.storage(error)
        }
    }
}

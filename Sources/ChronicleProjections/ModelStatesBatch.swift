import ChronicleSchema
import EventLog
import Foundation
import ChronicleLMDB

/// One write transaction of ``ModelStates/catchUp()``: events folded into an overlay of the
/// entities they touch (each read from the database once), then the changed entities and
/// their index entries written.
struct ModelStatesBatch {
    struct Key: Hashable {
        var entity: Int
        var id: UUID
    }

    let owner: ModelStates
    let txn: Transaction
    private let reader: ChronicleModel.EventReader
    /// The touched entities as folded so far.
    private(set) var overlay: ChronicleModel.Snapshot
    /// Per touched entity, what the database held before the batch (nil: nothing).
    private(set) var original: [Key: StoredEntity?] = [:]
    private var lastApplied: [Key: UInt64] = [:]
    /// The server positions of the events of the batch.
    private var upstream: [UInt64: UInt64] = [:]
    /// What pulled events overruled of this replica's writes, by position.
    private var conflicts: [(position: UInt64, conflict: MergeConflict)] = []
    /// The streams read whole during the batch (for merges: conflicts and refolds), each once.
    private var streams: [String: [RecordedEvent]] = [:]
    /// Events of the batch the model cannot read, and what was wrong with the first.
    private(set) var unread = 0
    private(set) var firstUnread: String?

    init(states owner: ModelStates, txn: Transaction) {
        self.owner = owner
        self.txn = txn
        reader = ChronicleModel.EventReader(owner.model)
        overlay = ChronicleModel.Snapshot(owner.model)
    }

    /// Folds `records` (consecutive events of the log) in.
    mutating func fold(_ records: [RecordedEvent]) throws {
        guard let first = records.first?.position, let last = records.last?.position else { return }
        upstream = try owner.log.upstreamPositions(in: first...last)
        // A pulled event overrules only this replica's earlier writes to its stream: whether
        // there are any is known first, for every stream at once (a device that pulls what
        // others wrote, the usual case, has none).
        let deviceID = owner.log.deviceID
        var firstOwn: [String: UInt64] = [:]
        if !upstream.isEmpty {
            let pulled = upstream
            firstOwn = try owner.log.firstOwnPositions(inStreams: records.lazy
                .filter { $0.origin != deviceID && pulled[$0.position] != nil }.map(\.stream), before: first)
            for record in records where record.origin == deviceID && firstOwn[record.stream] == nil { firstOwn[record.stream] = record.position }
        }
        for record in records {
            // An event the model cannot read (another app's, a newer version's) is kept in the
            // log and folds nothing; it is counted, and the first named (``ModelStates/unread()``).
            let event: ChronicleModel.Event
            do {
                event = try reader.read(type: record.type, stream: record.stream, data: record.data,
                                        schemaVersion: Int(record.schemaVersion))
            } catch {
                unread += 1
                if firstUnread == nil { firstUnread = "event \(record.position): \(error.description)" }
                continue
            }
            guard let number = owner.entityNumbers[event.entity] else { continue }
            let key = Key(entity: number, id: event.id)
            try load(key)
            let rank = ChronicleModel.EventRank(upstream: upstream[record.position], position: record.position)
            if let server = rank.upstream, record.origin != deviceID, let own = firstOwn[record.stream], own < record.position {
                let before = try events(of: record.stream).filter { $0.position < record.position }
                let servers = try owner.log.upstreamPositions(of: before.map(\.position))
                for conflict in ModelConflicts.of(event, record, server: server, before: before, upstream: servers,
                                                  deviceID: deviceID, reader: reader) {
                    conflicts.append((record.position, conflict))
                }
            }
            if rank.upstream != nil, let previous = lastApplied[key], previous > 0, rank < (try self.rank(of: previous)) {
                try refold(key, stream: record.stream, through: record.position)
            } else {
                overlay.apply(event, rank: rank)
                lastApplied[key] = record.position
            }
        }
    }

    /// Writes every entity the batch changed, with its index entries; returns them.
    func finish() throws -> [(entity: String, id: UUID)] {
        let showing = try showingChanges()
        try moveShares(showing)
        try writeHiddenFlags(of: showing)
        let hidden = Dictionary(uniqueKeysWithValues: showing.map { ($0.key, $0.hiddenAfter) })
        var changed: [(entity: String, id: UUID)] = []
        var index: [UInt64: UInt16] = [:]
        for (position, conflict) in conflicts {
            // As the todo app's conflicts are kept: the pulled event's position, then its conflict's number.
            let at = index[position, default: 0]
            index[position] = at + 1
            var key: [UInt8] = []
            key.appendBigEndian(position)
            key.appendBigEndian(at)
            try txn.put(owner.conflicts, key: key, value: ConflictsProjection.encode(conflict))
        }
        // In key order, each entity's live table through puts of its own: new ids, which rise
        // with time, are appended.
        var puts = [AscendingPuts?](repeating: nil, count: owner.live.count)
        // The index entries moved, written sorted when every entity is: appended where they pass
        // the stored ones, near each other where not.
        var indexes = IndexMoves(unique: IndexChanges(txn: txn, database: owner.unique),
                                 children: IndexChanges(txn: txn, database: owner.children),
                                 values: IndexChanges(txn: txn, database: owner.values))
        let keys = original.keys.sorted { a, b in a.entity != b.entity ? a.entity < b.entity : ModelStateKeys.precedes(a.id, b.id) }
        for key in keys {
            let before = original[key]!
            let entity = owner.model.entities[key.entity]
            let after = overlay.state(of: entity.name, id: key.id).map { state in
                StoredEntity(state: state, isHidden: hidden[key] ?? false, lastApplied: lastApplied[key] ?? 0,
                             uniqueWrites: overlay.uniqueRanks(of: entity.name, id: key.id).mapValues(\.position))
            }
            guard after != before else { continue }
            if let after {
                var entityPuts = try puts[key.entity] ?? AscendingPuts(txn: txn, database: owner.live[key.entity])
                let bytes = after.encoded(by: entity)
                try owner.write(txn, key.entity, key.id, bytes: bytes, isDeleted: after.state.isDeleted,
                                wasDeleted: before?.state.isDeleted, puts: &entityPuts)
                puts[key.entity] = entityPuts
            } else if let before {
                try owner.remove(txn, key.entity, key.id, wasDeleted: before.state.isDeleted)
            }
            reindex(entity, number: key.entity, before: before?.state, after: after?.state, into: &indexes)
            if after?.state != before?.state { changed.append((entity.name, key.id)) }
        }
        for index in [indexes.unique, indexes.children, indexes.values] { try index.write() }
        return changed
    }

    // MARK: - Folding

    /// Puts entity `key` in the overlay, as stored, the first time the batch meets it.
    private mutating func load(_ key: Key) throws {
        guard original[key] == nil else { return }
        let entity = owner.model.entities[key.entity]
        let stored = try owner.storedBytes(txn, key.entity, key.id).map { try StoredEntity.decode($0, id: key.id, entity: entity) }
        original[key] = .some(stored)
        if let stored {
            overlay.load(stored.state, uniqueRanks: stored.uniqueWrites.mapValues { .init(upstream: nil, position: $0) })
            lastApplied[key] = stored.lastApplied
        }
    }

    /// Where the merge ranks the event at `position`, as known now.
    private func rank(of position: UInt64) throws -> ChronicleModel.EventRank {
        let server = try upstream[position] ?? owner.log.upstreamPosition(of: position)
        return ChronicleModel.EventRank(upstream: server, position: position)
    }

    /// Folds entity `key` again from its stream's events up to `position`, in the merge's order.
    private mutating func refold(_ key: Key, stream: String, through position: UInt64) throws {
        let entity = owner.model.entities[key.entity]
        let ranked = try owner.ranked(try events(of: stream).filter { $0.position <= position }, reader: reader)
            .filter { $0.event.entity == entity.name && $0.event.id == key.id }
            .sorted { $0.rank < $1.rank }
        overlay.forget(entity: entity.name, id: key.id)
        for (rank, _, event) in ranked { overlay.apply(event, rank: rank) }
        lastApplied[key] = ranked.last?.rank.position ?? 0
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
    /// names) from `before` to `after`.
    private func reindex(_ entity: ChronicleModel.Entity, number: Int,
                         before: ChronicleModel.EntityState?, after: ChronicleModel.EntityState?, into indexes: inout IndexMoves) {
        let id = before?.id ?? after?.id
        guard let id else { return }
        for (index, field) in entity.fields.enumerated() {
            if let uniqueness = field.unique {
                let old = Self.uniqueEntry(before, field: field.name, under: uniqueness, entity: number, index: index)
                let new = Self.uniqueEntry(after, field: field.name, under: uniqueness, entity: number, index: index)
                move(&indexes.unique, from: old, to: new, id: id)
            }
            if owner.indexedFields[number].contains(field.name) {
                let old = Self.valueEntry(before, field: field.name, entity: number, index: index)
                let new = Self.valueEntry(after, field: field.name, entity: number, index: index)
                move(&indexes.values, from: old, to: new, id: id)
            }
            if case .reference = field.type {
                let old = before?.reference(field.name).map { ModelStateKeys.childrenPrefix(number, index, parent: $0) }
                let new = after?.reference(field.name).map { ModelStateKeys.childrenPrefix(number, index, parent: $0) }
                move(&indexes.children, from: old, to: new, id: id)
            }
        }
    }

    static func uniqueEntry(_ state: ChronicleModel.EntityState?, field: String, under uniqueness: ChronicleModel.Uniqueness,
                                    entity: Int, index: Int) -> [UInt8]? {
        guard let state, !state.isDeleted, case .text(let text)? = state.values[field] else { return nil }
        return ModelStateKeys.uniquePrefix(entity, index, key: uniqueness.key(text))
    }

    /// A live entity's indexed value (a deleted one is in no query's result).
    static func valueEntry(_ state: ChronicleModel.EntityState?, field: String, entity: Int, index: Int) -> [UInt8]? {
        guard let state, !state.isDeleted, let value = state.values[field] else { return nil }
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

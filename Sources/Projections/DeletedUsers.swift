import Domain
import Foundation
import LMDB

/// The users deleted and not restored, as a projection whose entities belong to users keeps them: a todo
/// whose user is deleted is not live, whether the todo was created before the deletion
/// (another device's, or one the deleting device had not pulled) or after it (pulled later).
///
/// Stored as index entries (user id → nothing) in the projection's own database, written
/// as soon as they are noted, so a rebuild of that projection alone needs no other model.
struct DeletedUsers {
    private let txn: Transaction
    private let database: Database
    /// The entities created in this batch for each user (not in the stored index yet).
    private var createdInBatch: [UUID: [UUID]] = [:]

    init(txn: Transaction, database: Database) {
        self.txn = txn
        self.database = database
    }

    func contains(_ user: UUID) throws -> Bool {
        try withUnsafeBytes(of: user.uuid) { key in try txn.get(database, key: key) != nil }
    }

    func insert(_ user: UUID) throws {
        try txn.putIndexEntry(database, key: withUnsafeBytes(of: user.uuid) { Array($0) })
    }

    /// Takes `user` out (a restoration, or a refold that folds the user's events again).
    func remove(_ user: UUID) throws {
        try txn.delete(database, key: withUnsafeBytes(of: user.uuid) { Array($0) })
    }

    /// Notes what `event` does to the deleted users: a user's deletion adds it, its restoration
    /// takes it out. Returns the user and whether its entities are hidden now (nil for any
    /// other event).
    func note(_ event: DomainEvent) throws -> (user: UUID, deleted: Bool)? {
        switch event {
        case .userDeleted(let id):
            try insert(id)
            return (id, true)
        case .userRestored(let id):
            try remove(id)
            return (id, false)
        default:
            return nil
        }
    }

    /// Notes a todo's creation for its user; returns whether that user is deleted (the todo
    /// starts hidden then).
    mutating func noteCreation(_ event: DomainEvent) throws -> Bool {
        switch event {
        case .todoCreated(let id, _, _, let userId?, _):
            noteCreated(id, of: userId)
            return try contains(userId)
        default:
            return false
        }
    }

    /// Notes an entity of `user` created in this batch.
    mutating func noteCreated(_ id: UUID, of user: UUID) {
        createdInBatch[user, default: []].append(id)
    }

    /// The entities of `user`: those created in this batch, and the ids in the 16 bytes at
    /// `offset` of every key of the stored `index` that starts with `user`.
    func entities(of user: UUID, in index: Database, idAt offset: Int) throws -> [UUID] {
        let prefix = withUnsafeBytes(of: user.uuid) { Array($0) }
        var ids: [UUID] = createdInBatch[user] ?? []
        try txn.withCursor(index) { cursor in
            var entry = try cursor.seek(atLeast: prefix)
            while let current = entry, current.key.starts(with: prefix) {
                ids.append(try ModelCodec.id(in: current.key, at: offset))
                entry = try cursor.next()
            }
        }
        return ids
    }
}

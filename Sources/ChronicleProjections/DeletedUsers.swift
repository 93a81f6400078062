import ChronicleTodoDomain
import Foundation
import ChronicleLMDB

/// The users deleted and not restored, as a projection whose entities belong to users keeps them: a todo
/// whose user is deleted is not live, whether the todo was created before the deletion
/// (another device's, or one the deleting device had not pulled) or after it (pulled later).
///
/// Stored as index entries (user id → nothing) in the projection's own database, written
/// as soon as they are noted, so a rebuild of that projection alone needs no other model.
struct DeletedUsers {
    private let txn: Transaction
    private let database: Database
    /// What this batch knows of each user its events named: one lookup per todo created,
    /// where a creation looked its user up in the database and noted the todo in a table of
    /// its own (a twentieth of a rebuild's folding, for 0.1% of events that delete users).
    private var users: [UUID: BatchUser] = [:]

    private struct BatchUser {
        /// Whether the user is deleted, once read from the database (kept up as the batch
        /// notes deletions and restorations).
        var isDeleted: Bool?
        /// The entities created in this batch for the user (not in the stored index yet).
        var created: [UUID] = []
    }

    init(txn: Transaction, database: Database) {
        self.txn = txn
        self.database = database
    }

    /// Notes what `event` does to the deleted users: a user's deletion adds it, its restoration
    /// takes it out. Returns the user and whether its entities are hidden now (nil for any
    /// other event).
    mutating func note(_ event: DomainEvent) throws -> (user: UUID, deleted: Bool)? {
        switch event {
        case .userDeleted(let id):
            try txn.putIndexEntry(database, key: withUnsafeBytes(of: id.uuid) { Array($0) })
            users[id, default: BatchUser()].isDeleted = true
            return (id, true)
        case .userRestored(let id):
            try remove(id)
            return (id, false)
        default:
            return nil
        }
    }

    /// Takes `user` out (a restoration, or a refold that folds the user's events again).
    mutating func remove(_ user: UUID) throws {
        try txn.delete(database, key: withUnsafeBytes(of: user.uuid) { Array($0) })
        users[user, default: BatchUser()].isDeleted = false
    }

    /// Notes a todo's creation for its user; returns whether that user is deleted (the todo
    /// starts hidden then).
    mutating func noteCreation(_ event: DomainEvent) throws -> Bool {
        switch event {
        case .todoCreated(let id, _, _, let userId?, _):
            let (txn, database) = (txn, database)
            // In place: one lookup of the user, whose entry is changed where it lies.
            return try Self.noteCreated(id, in: &users[userId, default: BatchUser()]) {
                try withUnsafeBytes(of: userId.uuid) { key in try txn.get(database, key: key) != nil }
            }
        default:
            return false
        }
    }

    private static func noteCreated(_ id: UUID, in user: inout BatchUser, stored: () throws -> Bool) rethrows -> Bool {
        user.created.append(id)
        if let known = user.isDeleted { return known }
        let deleted = try stored()
        user.isDeleted = deleted
        return deleted
    }

    /// The entities of `user`: those created in this batch, and the ids in the 16 bytes at
    /// `offset` of every key of the stored `index` that starts with `user`.
    func entities(of user: UUID, in index: Database, idAt offset: Int) throws -> [UUID] {
        let prefix = withUnsafeBytes(of: user.uuid) { Array($0) }
        var ids: [UUID] = users[user]?.created ?? []
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

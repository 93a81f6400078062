import Domain
import Foundation
import LMDB

/// Users by id (`users`), and the name index the list is read from (`users.by-name`).
struct UsersProjection: Projection {
    static let name = ProjectionName.users
    /// 2: merged (a pulled write that ranks before this store's unsent ones: ``MergeDecoder``).
    static let version: UInt32 = 2
    static let databaseNames = ["users", "users.by-name"]

    /// The fold: the user left after `event`, given the live user before it (nil: none).
    ///
    /// The rules of ``DomainSnapshot``: a creation of a live id, and an update of an
    /// id that is not live, change nothing; a deletion removes.
    static func fold(_ event: DomainEvent, _ user: User?) -> User? {
        switch event {
        case .userCreated(let id, let name, let age):
            return user ?? User(id: id, name: name, age: age)
        case .userUpdated(_, let name, let age):
            guard var user else { return nil }
            if let name { user.name = name }
            if let age { user.age = age }
            return user
        case .userDeleted:
            return nil
        case .todoCreated, .todoUpdated, .todoCompleted, .todoReopened, .todoDeleted:
            return user
        case .tagCreated, .tagUpdated, .tagDeleted, .todoTagged, .todoUntagged:
            return user
        }
    }

    private let txn: Transaction
    private let byID: Database
    private let byName: Database
    private var touched = TouchedEntities<User>()

    init(txn: Transaction, databases: [Database], ranks: MergeRanks) {
        self.txn = txn
        byID = databases[0]
        byName = databases[1]
    }

    mutating func apply(_ event: DomainEvent, at position: UInt64) throws {
        switch event {
        case .userCreated, .userUpdated, .userDeleted: break
        case .todoCreated, .todoUpdated, .todoCompleted, .todoReopened, .todoDeleted: return
        case .tagCreated, .tagUpdated, .tagDeleted, .todoTagged, .todoUntagged: return
        }
        let (txn, byID) = (txn, byID)
        try touched.fold(event.entityID, at: position, load: { try Self.load(event.entityID, txn: txn, byID: byID) }) {
            Self.fold(event, $0)
        }
    }

    mutating func finish(changes: inout [ReadModelChange]?) throws {
        var key = [UInt8](), value = [UInt8]()
        key.reserveCapacity(64)
        value.reserveCapacity(64)
        for (id, entry) in touched.sorted {
            if Self.same(entry.original, entry.current) { continue }
            let renamed = !(entry.original?.name).sameBytes(as: entry.current?.name)
            if let old = entry.original, renamed {
                ModelCodec.nameKey(old.name, id: id, into: &key)
                try txn.delete(byName, key: key)
            }
            if let new = entry.current {
                if renamed {
                    ModelCodec.nameKey(new.name, id: id, into: &key)
                    try txn.putIndexEntry(byName, key: key)
                }
                ModelCodec.encode(new, into: &value)
                try withUnsafeBytes(of: id.uuid) { k in
                    try value.withUnsafeBytes { v in try txn.put(byID, key: k, value: v) }
                }
                changes?.append(.user(new, position: entry.position))
            } else {
                try txn.delete(byID, key: withUnsafeBytes(of: id.uuid) { Array($0) })
                changes?.append(.userRemoved(id, position: entry.position))
            }
        }
    }

    static func load(_ id: UUID, txn: Transaction, byID: Database) throws -> User? {
        try withUnsafeBytes(of: id.uuid) { key in
            try txn.get(byID, key: key).map { bytes in try ModelCodec.decodeUser(id: id, bytes) }
        }
    }

    /// Equal as stored bytes.
    private static func same(_ a: User?, _ b: User?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): a.age == b.age && a.name.sameBytes(as: b.name)
        default: false
        }
    }
}

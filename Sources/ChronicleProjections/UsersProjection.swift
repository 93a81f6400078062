import ChronicleTodoDomain
import Foundation
import ChronicleLMDB
import UUIDText

/// Users by id (`users`), and the name index the list is read from (`users.by-name`).
struct UsersProjection: Projection {
    static let name = ProjectionName.users
    /// 2: merged (a pulled write that ranks before this store's unsent ones: ``MergeDecoder``).
    /// 3: deleted users kept (`users.hidden`), so a restoration brings them back.
    static let version: UInt32 = 3
    static let databaseNames = ["users", "users.by-name", "users.hidden"]

    /// The fold, in place: the user before `event` (nil: none) becomes the user after it, by the
    /// rules of the todo app's model (``Kept/fold(_:_:create:change:)``).
    static func fold(_ event: DomainEvent, _ user: inout Kept<User>?) {
        Kept.fold(event, &user, create: {
            switch event {
            case .userCreated(let id, let name, let age): User(id: id, name: name, age: age)
            default: nil
            }
        }, change: { user in
            switch event {
            case .userUpdated(_, let name, let age):
                if let name { user.name = name }
                if let age { user.age = age }
            default:
                break
            }
        })
    }

    private let txn: Transaction
    private let byID: Database
    private let byName: Database
    private let hidden: HiddenEntities<User>
    private var touched = TouchedEntities<Kept<User>>(measure: { $0.value.name.utf8.count })

    var heldEntities: Int { touched.count }
    var loadedBytes: Int { touched.loadedBytes }

    init(txn: Transaction, databases: [Database], ranks: MergeRanks) {
        self.txn = txn
        byID = databases[0]
        byName = databases[1]
        hidden = HiddenEntities(txn: txn, database: databases[2], byOwner: nil, owner: { _ in nil },
                                encode: ModelCodec.encode(_:into:), decode: ModelCodec.decodeUser(id:_:), same: Self.same)
    }

    static func concerns(_ item: DecodedEvents.Item) -> Bool { item.kind == .user }

    mutating func apply(_ event: DomainEvent, at position: UInt64) throws {
        guard event.entityKind == .user else { return }
        let (txn, byID, hidden) = (txn, byID, hidden)
        try touched.fold(event.entityID, at: position, load: { try Self.load(event.entityID, txn: txn, byID: byID, hidden: hidden) }) {
            Self.fold(event, &$0)
        }
    }

    mutating func forget(_ kind: EntityKind, _ id: UUID, at position: UInt64) throws {
        guard kind == .user else { return }
        let (txn, byID, hidden) = (txn, byID, hidden)
        try touched.fold(id, at: position, load: { try Self.load(id, txn: txn, byID: byID, hidden: hidden) }) { $0 = nil }
    }

    mutating func finish(changes: inout [ReadModelChange]?) throws {
        var key = [UInt8](), value = [UInt8]()
        key.reserveCapacity(64)
        value.reserveCapacity(64)
        var users = try AscendingPuts(txn: txn, database: byID)
        try touched.forEachSorted { id, entry in
            try hidden.write(id, original: entry.original, current: entry.current)
            let (original, current) = (entry.original?.shown, entry.current?.shown)
            if Self.same(original, current) { return }
            let renamed = !(original?.name).sameBytes(as: current?.name)
            if let old = original, renamed {
                ModelCodec.nameKey(old.name, id: id, into: &key)
                try txn.delete(byName, key: key)
            }
            if let new = current {
                if renamed {
                    ModelCodec.nameKey(new.name, id: id, into: &key)
                    try txn.putIndexEntry(byName, key: key)
                }
                ModelCodec.encode(new, into: &value)
                try withUnsafeBytes(of: id.uuid) { k in
                    try value.withUnsafeBytes { v in try users.put(key: k, value: v) }
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

    private static func load(_ id: UUID, txn: Transaction, byID: Database, hidden: HiddenEntities<User>) throws -> Kept<User>? {
        try load(id, txn: txn, byID: byID).map { Kept(value: $0) } ?? hidden.load(id)
    }

    /// Equal as stored bytes.
    private static func same(_ a: User?, _ b: User?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): same(a, b)
        default: false
        }
    }

    private static func same(_ a: User, _ b: User) -> Bool { a.age == b.age && a.name.sameBytes(as: b.name) }
}

import Domain
import Foundation
import LMDB

/// Todos by id (`todos`), with the indexes the lists are read from:
/// `todos.by-deadline` (day ‖ id), `todos.by-user` (user ‖ day ‖ id) and
/// `todos.by-tag` (tag ‖ day ‖ id).
///
/// A stored todo keeps every tag it was tagged with and not untagged, deleted tags
/// included; reads keep the live ones (``ReadModels``), so deleting a tag touches no todo.
/// A todo of a deleted user is not live (`todos.deleted-users`: ``DeletedUsers``).
struct TodosProjection: Projection {
    static let name = ProjectionName.todos
    /// 2: tags in the todo, and `todos.by-tag`. 3: merged (a pulled write that ranks before
    /// this store's unsent ones, see ``MergeDecoder``), and a deleted user's todos go.
    static let version: UInt32 = 3
    static let databaseNames = ["todos", "todos.by-deadline", "todos.by-user", "todos.by-tag", "todos.deleted-users"]

    /// The fold: the todo left after `event`, given the live todo before it (nil: none).
    ///
    /// The rules of ``DomainSnapshot``: a creation of a live id, and any change of an
    /// id that is not live, change nothing; a deletion removes.
    static func fold(_ event: DomainEvent, _ todo: Todo?) -> Todo? {
        switch event {
        case .todoCreated(let id, let title, let deadline, let userId, let memo):
            return todo ?? Todo(id: id, title: title, deadline: deadline, userId: userId, memo: memo)
        case .todoUpdated(_, let title, let deadline, let memo):
            guard var todo else { return nil }
            if let title { todo.title = title }
            if let deadline { todo.deadline = deadline }
            if let memo { todo.memo = memo }
            return todo
        case .todoCompleted:
            guard var todo else { return nil }
            todo.isCompleted = true
            return todo
        case .todoReopened:
            guard var todo else { return nil }
            todo.isCompleted = false
            return todo
        case .todoDeleted:
            return nil
        case .todoTagged(_, let tagId):
            guard var todo else { return nil }
            if !todo.tags.contains(tagId) { todo.tags = Todo.sortedTagIDs(todo.tags + [tagId]) }
            return todo
        case .todoUntagged(_, let tagId):
            guard var todo else { return nil }
            todo.tags.removeAll { $0 == tagId }
            return todo
        case .userCreated, .userUpdated, .userDeleted, .tagCreated, .tagUpdated, .tagDeleted:
            return todo
        }
    }

    private let txn: Transaction
    private let byID: Database
    private let byDeadline: Database
    private let byUser: Database
    private let byTag: Database
    private var deletedUsers: DeletedUsers
    private var touched = TouchedEntities<Todo>()

    init(txn: Transaction, databases: [Database], ranks: MergeRanks) {
        self.txn = txn
        byID = databases[0]
        byDeadline = databases[1]
        byUser = databases[2]
        byTag = databases[3]
        deletedUsers = DeletedUsers(txn: txn, database: databases[4])
    }

    mutating func apply(_ event: DomainEvent, at position: UInt64) throws {
        switch event {
        case .todoCreated(let id, _, _, let userId?, _):
            if try deletedUsers.contains(userId) { return }
            deletedUsers.noteCreated(id, of: userId)
        case .todoCreated, .todoUpdated, .todoCompleted, .todoReopened, .todoDeleted, .todoTagged, .todoUntagged: break
        case .userDeleted(let userId):
            try deletedUsers.insert(userId)
            try removeTodos(of: userId, at: position)
            return
        case .userCreated, .userUpdated, .tagCreated, .tagUpdated, .tagDeleted: return
        }
        let (txn, byID) = (txn, byID)
        try touched.fold(event.entityID, at: position, load: { try Self.load(event.entityID, txn: txn, byID: byID) }) {
            Self.fold(event, $0)
        }
    }

    /// Takes every todo of `userId` out, the stored ones and those of this batch.
    private mutating func removeTodos(of userId: UUID, at position: UInt64) throws {
        let (txn, byID) = (txn, byID)
        for id in try deletedUsers.entities(of: userId, in: byUser, idAt: 20) {
            try touched.fold(id, at: position, load: { try Self.load(id, txn: txn, byID: byID) }) { _ in nil }
        }
    }

    mutating func finish(changes: inout [ReadModelChange]?) throws {
        var key = [UInt8](), value = [UInt8]()
        key.reserveCapacity(64)
        value.reserveCapacity(256)
        for (id, entry) in touched.sorted {
            let old = entry.original, new = entry.current
            if Self.same(old, new) { continue }
            let moved = old?.deadline != new?.deadline
            let reowned = moved || old?.userId != new?.userId
            if let old, moved {
                ModelCodec.deadlineKey(old, into: &key)
                try txn.delete(byDeadline, key: key)
            }
            if let old, let owner = old.userId, reowned {
                ModelCodec.userKey(old, owner: owner, into: &key)
                try txn.delete(byUser, key: key)
            }
            let retagged = moved || old?.tags != new?.tags
            if let old, retagged {
                for tag in old.tags where moved || new?.tags.contains(tag) != true {
                    ModelCodec.tagKey(old, tag: tag, into: &key)
                    try txn.delete(byTag, key: key)
                }
            }
            guard let new else {
                try txn.delete(byID, key: withUnsafeBytes(of: id.uuid) { Array($0) })
                changes?.append(.todoRemoved(id, position: entry.position))
                continue
            }
            if moved {
                ModelCodec.deadlineKey(new, into: &key)
                try txn.putIndexEntry(byDeadline, key: key)
            }
            if let owner = new.userId, reowned {
                ModelCodec.userKey(new, owner: owner, into: &key)
                try txn.putIndexEntry(byUser, key: key)
            }
            if retagged {
                for tag in new.tags where moved || old?.tags.contains(tag) != true {
                    ModelCodec.tagKey(new, tag: tag, into: &key)
                    try txn.putIndexEntry(byTag, key: key)
                }
            }
            ModelCodec.encode(new, into: &value)
            try withUnsafeBytes(of: id.uuid) { k in
                try value.withUnsafeBytes { v in try txn.put(byID, key: k, value: v) }
            }
            changes?.append(.todo(new, position: entry.position))
        }
    }

    static func load(_ id: UUID, txn: Transaction, byID: Database) throws -> Todo? {
        try withUnsafeBytes(of: id.uuid) { key in
            try txn.get(byID, key: key).map { bytes in try ModelCodec.decodeTodo(id: id, bytes) }
        }
    }

    /// Equal as stored bytes.
    private static func same(_ a: Todo?, _ b: Todo?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?):
            a.deadline == b.deadline && a.isCompleted == b.isCompleted && a.userId == b.userId && a.tags == b.tags
                && a.title.sameBytes(as: b.title) && a.memo.sameBytes(as: b.memo)
        default: false
        }
    }
}

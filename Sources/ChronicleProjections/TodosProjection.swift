import ChronicleTodoDomain
import Foundation
import ChronicleLMDB
import UUIDText

/// Todos by id (`todos`), with the indexes the lists are read from:
/// `todos.by-deadline` (day ‖ id), `todos.by-user` (user ‖ day ‖ id) and
/// `todos.by-tag` (tag ‖ day ‖ id), and the per-day counts of the live todos that the
/// daily-stats model serves (`todos.daily-stats`: ``DayCounts``), written from the same changes.
///
/// A stored todo keeps every tag it was tagged with and not untagged, deleted tags
/// included; reads keep the live ones (``ReadModels``), so deleting a tag touches no todo.
/// A todo of a deleted user is not live (`todos.deleted-users`: ``DeletedUsers``). Todos not
/// shown (deleted, or of a deleted user) are kept in `todos.hidden` (``HiddenEntities``).
struct TodosProjection: Projection {
    static let name = ProjectionName.todos
    /// 2: tags in the todo, and `todos.by-tag`. 3: merged (a pulled write that ranks before
    /// this store's unsent ones, see ``MergeDecoder``), and a deleted user's todos go.
    /// 4: todos not shown kept (`todos.hidden`, `todos.hidden-by-user`), so a restoration of
    /// the todo or of its user brings them back; an empty memo is none.
    /// 5: the daily stats counted here (`todos.daily-stats`), instead of by a projection that kept
    /// its own copy of every todo.
    static let version: UInt32 = 5
    /// The database of per-day counts: the daily-stats model (``ProjectionName/dailyStats``).
    static let dailyStatsDatabase = "todos.daily-stats"
    static let databaseNames = ["todos", "todos.by-deadline", "todos.by-user", "todos.by-tag", "todos.deleted-users",
                                "todos.hidden", "todos.hidden-by-user", dailyStatsDatabase]

    /// The fold, in place: the todo before `event` (nil: none) becomes the todo after it, by the rules
    /// of the todo app's model (``Kept/fold(_:_:create:change:)``). A todo created for a
    /// deleted user (`ownerDeleted`) is kept hidden.
    static func fold(_ event: DomainEvent, _ todo: inout Kept<Todo>?, ownerDeleted: Bool = false) {
        let wasAbsent = todo == nil
        Kept.fold(event, &todo, create: {
            // A switch, not `guard case`: binding an enum's payload with `guard case` copied it
            // whole through its runtime metadata, field by field.
            switch event {
            case .todoCreated(let id, let title, let deadline, let userId, let memo):
                Todo(id: id, title: title, deadline: deadline, userId: userId, memo: memo.flatMap(Todo.memo(written:)))
            default:
                nil
            }
        }, change: { todo in
            switch event {
            case .todoUpdated(_, let title, let deadline, let memo):
                if let title { todo.title = title }
                if let deadline { todo.deadline = deadline }
                if let memo { todo.memo = Todo.memo(written: memo) }
            case .todoCompleted:
                todo.isCompleted = true
            case .todoReopened:
                todo.isCompleted = false
            case .todoTagged(_, let tagId):
                if !todo.tags.contains(tagId) { todo.tags = Todo.sortedTagIDs(todo.tags + [tagId]) }
            case .todoUntagged(_, let tagId):
                todo.tags.removeAll { $0 == tagId }
            default:
                break
            }
        })
        if wasAbsent, case .todoCreated = event { todo?.ownerDeleted = ownerDeleted }
    }

    private let txn: Transaction
    private let byID: Database
    private let byDeadline: Database
    private let byUser: Database
    private let byTag: Database
    private var deletedUsers: DeletedUsers
    private let hidden: HiddenEntities<Todo>
    /// Whether a todo may be in `todos` or `todos.hidden` (one created in this batch is not).
    private let stored: StoredIDCeiling
    private var touched = TouchedEntities<Kept<Todo>>(measure: { todo in
        todo.value.title.utf8.count + (todo.value.memo?.utf8.count ?? 0) + todo.value.tags.count * 16
    })
    private let dailyStats: Database

    var heldEntities: Int { touched.count }
    var loadedBytes: Int { touched.loadedBytes }

    init(txn: Transaction, databases: [Database], ranks: MergeRanks) {
        self.txn = txn
        byID = databases[0]
        byDeadline = databases[1]
        byUser = databases[2]
        byTag = databases[3]
        deletedUsers = DeletedUsers(txn: txn, database: databases[4])
        hidden = HiddenEntities(txn: txn, database: databases[5], byOwner: databases[6], owner: \.userId,
                                encode: ModelCodec.encode(_:into:), decode: ModelCodec.decodeTodo(id:_:), same: Self.same)
        stored = StoredIDCeiling(txn: txn, databases: [databases[0], databases[5]])
        dailyStats = databases[7]
    }

    /// Todos, and users (a user's deletion hides its todos).
    static func concerns(_ item: DecodedEvents.Item) -> Bool { item.kind == .todo || item.kind == .user }

    mutating func reserve(entities count: Int) {
        touched.reserve(count)
    }

    mutating func apply(_ event: DomainEvent, at position: UInt64) throws {
        switch event.entityKind {
        case .todo: break
        case .user:
            if let (user, deleted) = try deletedUsers.note(event) { try setOwnerDeleted(deleted, ofTodosOf: user, at: position) }
            return
        case .tag:
            return
        }
        let ownerDeleted = try deletedUsers.noteCreation(event)
        let (txn, byID, hidden, stored) = (txn, byID, hidden, stored)
        try touched.fold(event.entityID, at: position, load: { try Self.load(event.entityID, txn: txn, byID: byID, hidden: hidden, stored: stored) }) {
            Self.fold(event, &$0, ownerDeleted: ownerDeleted)
        }
    }

    mutating func forget(_ kind: EntityKind, _ id: UUID, at position: UInt64) throws {
        switch kind {
        case .todo:
            let (txn, byID, hidden, stored) = (txn, byID, hidden, stored)
            try touched.fold(id, at: position, load: { try Self.load(id, txn: txn, byID: byID, hidden: hidden, stored: stored) }) { $0 = nil }
        case .user:
            try deletedUsers.remove(id)
            try setOwnerDeleted(false, ofTodosOf: id, at: position)
        case .tag:
            break
        }
    }

    /// Hides (or shows again) every todo of `userId`: the shown ones, the hidden ones and
    /// those of this batch.
    private mutating func setOwnerDeleted(_ deleted: Bool, ofTodosOf userId: UUID, at position: UInt64) throws {
        let (txn, byID, hidden, stored) = (txn, byID, hidden, stored)
        let ids = try deletedUsers.entities(of: userId, in: byUser, idAt: 20) + hidden.ids(ownedBy: userId)
        for id in Set(ids) {
            try touched.fold(id, at: position, load: { try Self.load(id, txn: txn, byID: byID, hidden: hidden, stored: stored) }) { todo in
                if todo?.value.userId == userId { todo?.ownerDeleted = deleted }
            }
        }
    }

    mutating func finish(changes: inout [ReadModelChange]?) throws {
        var key = [UInt8](), value = [UInt8]()
        key.reserveCapacity(64)
        value.reserveCapacity(256)
        var days = DayCounts(txn: txn, database: dailyStats)
        var todos = try AscendingPuts(txn: txn, database: byID)
        var deadlines = IndexChanges(txn: txn, database: byDeadline), owners = IndexChanges(txn: txn, database: byUser)
        var tags = IndexChanges(txn: txn, database: byTag)
        try touched.forEachSorted { id, entry in
            try hidden.write(id, original: entry.original, current: entry.current)
            let old = entry.original?.shown, new = entry.current?.shown
            if Self.same(old, new) { return }
            try days.add(before: old, after: new, position: entry.position)
            let moved = old?.deadline != new?.deadline
            let reowned = moved || old?.userId != new?.userId
            if let old, moved {
                ModelCodec.deadlineKey(old, into: &key)
                deadlines.remove(key)
            }
            if let old, let owner = old.userId, reowned {
                ModelCodec.userKey(old, owner: owner, into: &key)
                owners.remove(key)
            }
            let retagged = moved || old?.tags != new?.tags
            if let old, retagged {
                for tag in old.tags where moved || new?.tags.contains(tag) != true {
                    ModelCodec.tagKey(old, tag: tag, into: &key)
                    tags.remove(key)
                }
            }
            guard let new else {
                try txn.delete(byID, key: withUnsafeBytes(of: id.uuid) { Array($0) })
                changes?.append(.todoRemoved(id, position: entry.position))
                return
            }
            if moved {
                ModelCodec.deadlineKey(new, into: &key)
                deadlines.add(key)
            }
            if let owner = new.userId, reowned {
                ModelCodec.userKey(new, owner: owner, into: &key)
                owners.add(key)
            }
            if retagged {
                for tag in new.tags where moved || old?.tags.contains(tag) != true {
                    ModelCodec.tagKey(new, tag: tag, into: &key)
                    tags.add(key)
                }
            }
            ModelCodec.encode(new, into: &value)
            try withUnsafeBytes(of: id.uuid) { k in
                try value.withUnsafeBytes { v in try todos.put(key: k, value: v) }
            }
            changes?.append(.todo(new, position: entry.position))
        }
        for index in [deadlines, owners, tags] { try index.write() }
        try days.write(changes: &changes)
    }

    static func load(_ id: UUID, txn: Transaction, byID: Database) throws -> Todo? {
        try withUnsafeBytes(of: id.uuid) { key in
            try txn.get(byID, key: key).map { bytes in try ModelCodec.decodeTodo(id: id, bytes) }
        }
    }

    private static func load(_ id: UUID, txn: Transaction, byID: Database, hidden: HiddenEntities<Todo>,
                             stored: StoredIDCeiling) throws -> Kept<Todo>? {
        guard try stored.mayHold(id) else { return nil }
        return try load(id, txn: txn, byID: byID).map { Kept(value: $0) } ?? hidden.load(id)
    }

    /// Equal as stored bytes.
    private static func same(_ a: Todo?, _ b: Todo?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): same(a, b)
        default: false
        }
    }

    private static func same(_ a: Todo, _ b: Todo) -> Bool {
        a.deadline == b.deadline && a.isCompleted == b.isCompleted && a.userId == b.userId && a.tags == b.tags
            && a.title.sameBytes(as: b.title) && a.memo.sameBytes(as: b.memo)
    }
}

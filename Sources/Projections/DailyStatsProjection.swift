import Domain
import Foundation
import LMDB

/// Per-day counts (`daily-stats`: day → total, completed; only days with a live todo),
/// and the projection's own view of each live todo (`daily-stats.todos`: id → day, completed,
/// user; `daily-stats.by-user`: user ‖ todo id; `daily-stats.deleted-users`: ``DeletedUsers``;
/// the marks not counted, of deleted todos and of deleted users' todos: ``HiddenEntities``),
/// so it can be rebuilt on its own.
struct DailyStatsProjection: Projection {
    static let name = ProjectionName.dailyStats
    /// 2: merged (see ``MergeDecoder``), and a deleted user's todos do not count.
    /// 3: marks not counted kept (`daily-stats.hidden`, `daily-stats.hidden-by-user`), so a
    /// restoration of the todo or of its user counts them again.
    static let version: UInt32 = 3
    static let databaseNames = ["daily-stats", "daily-stats.todos", "daily-stats.by-user", "daily-stats.deleted-users",
                                "daily-stats.hidden", "daily-stats.hidden-by-user"]

    /// The fold: what counts of the todo after `event`, given what counted before (nil: none),
    /// by the rules of the todos projection; the days move by ``DailyStatDelta``.
    static func fold(_ event: DomainEvent, _ mark: Kept<TodoMark>?, ownerDeleted: Bool = false) -> Kept<TodoMark>? {
        Kept.fold(event, mark, create: {
            guard case .todoCreated(_, _, let deadline, let userId, _) = event else { return nil }
            return TodoMark(deadline: deadline, isCompleted: false, userId: userId)
        }, change: { mark in
            switch event {
            case .todoUpdated(_, _, let deadline?, _): mark.deadline = deadline
            case .todoCompleted: mark.isCompleted = true
            case .todoReopened: mark.isCompleted = false
            default: break
            }
        }).map { kept in
            guard mark == nil, case .todoCreated = event else { return kept }
            var created = kept
            created.ownerDeleted = ownerDeleted
            return created
        }
    }

    /// The day changes between two states of todo `id` (the one rule shared with replay and verify).
    static func deltas(_ id: UUID, before: TodoMark?, after: TodoMark?) -> [DailyStatDelta] {
        func todo(_ mark: TodoMark?) -> Todo? {
            mark.map { Todo(id: id, title: "", deadline: $0.deadline, isCompleted: $0.isCompleted) }
        }
        return DailyStatDelta.between(before: todo(before), after: todo(after))
    }

    private struct TouchedDay {
        var original: (total: Int, completed: Int)
        var current: (total: Int, completed: Int)
        var position: UInt64
    }

    private let txn: Transaction
    private let stats: Database
    private let marks: Database
    private let byUser: Database
    private var deletedUsers: DeletedUsers
    private let hidden: HiddenEntities<TodoMark>
    /// Whether a todo may have a mark in `daily-stats.todos` or `daily-stats.hidden`.
    private let stored: StoredIDCeiling
    private var touched = TouchedEntities<Kept<TodoMark>>()

    var heldEntities: Int { touched.count }

    init(txn: Transaction, databases: [Database], ranks: MergeRanks) {
        self.txn = txn
        stats = databases[0]
        marks = databases[1]
        byUser = databases[2]
        deletedUsers = DeletedUsers(txn: txn, database: databases[3])
        hidden = HiddenEntities(txn: txn, database: databases[4], byOwner: databases[5], owner: \.userId,
                                encode: ModelCodec.encode(_:into:), decode: { _, bytes in try ModelCodec.decodeMark(bytes) },
                                same: ==)
        stored = StoredIDCeiling(txn: txn, databases: [databases[1], databases[4]])
    }

    /// Todos, and users (a user's deletion hides its todos).
    static func concerns(_ item: DecodedEvents.Item) -> Bool {
        guard let kind = item.event?.entityKind else { return false }
        return kind != .tag
    }

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
        let (txn, marks, hidden, stored) = (txn, marks, hidden, stored)
        try touched.fold(event.entityID, at: position, load: { try Self.loadMark(event.entityID, txn: txn, marks: marks, hidden: hidden, stored: stored) }) {
            Self.fold(event, $0, ownerDeleted: ownerDeleted)
        }
    }

    mutating func forget(_ kind: EntityKind, _ id: UUID, at position: UInt64) throws {
        switch kind {
        case .todo:
            let (txn, marks, hidden, stored) = (txn, marks, hidden, stored)
            try touched.fold(id, at: position, load: { try Self.loadMark(id, txn: txn, marks: marks, hidden: hidden, stored: stored) }) { _ in nil }
        case .user:
            try deletedUsers.remove(id)
            try setOwnerDeleted(false, ofTodosOf: id, at: position)
        case .tag:
            break
        }
    }

    /// Stops (or starts again) counting every todo of `userId`.
    private mutating func setOwnerDeleted(_ deleted: Bool, ofTodosOf userId: UUID, at position: UInt64) throws {
        let (txn, marks, hidden, stored) = (txn, marks, hidden, stored)
        let ids = try deletedUsers.entities(of: userId, in: byUser, idAt: 16) + hidden.ids(ownedBy: userId)
        for id in Set(ids) {
            try touched.fold(id, at: position, load: { try Self.loadMark(id, txn: txn, marks: marks, hidden: hidden, stored: stored) }) { mark in
                guard var mark, mark.value.userId == userId else { return mark }
                mark.ownerDeleted = deleted
                return mark
            }
        }
    }

    private static func loadMark(_ id: UUID, txn: Transaction, marks: Database, hidden: HiddenEntities<TodoMark>,
                                 stored: StoredIDCeiling) throws -> Kept<TodoMark>? {
        guard try stored.mayHold(id) else { return nil }
        return try withUnsafeBytes(of: id.uuid) { key in
            try txn.get(marks, key: key).map { bytes in Kept(value: try ModelCodec.decodeMark(bytes)) }
        } ?? hidden.load(id)
    }

    mutating func finish(changes: inout [ReadModelChange]?) throws {
        var key = [UInt8](), value = [UInt8]()
        key.reserveCapacity(16)
        value.reserveCapacity(16)
        // Counts are sums over the live todos, so each todo's net change is all that matters.
        var days: [UInt32: TouchedDay] = [:]
        try touched.forEachSorted { id, entry in
            try hidden.write(id, original: entry.original, current: entry.current)
            let (original, current) = (entry.original?.shown, entry.current?.shown)
            guard original != current else { return }
            if original?.userId != current?.userId {
                if let owner = original?.userId { try txn.delete(byUser, key: Self.userKey(owner, id)) }
                if let owner = current?.userId { try txn.putIndexEntry(byUser, key: Self.userKey(owner, id)) }
            }
            if let mark = current {
                ModelCodec.encode(mark, into: &value)
                try withUnsafeBytes(of: id.uuid) { k in
                    try value.withUnsafeBytes { v in try txn.put(marks, key: k, value: v) }
                }
            } else {
                try txn.delete(marks, key: withUnsafeBytes(of: id.uuid) { Array($0) })
            }
            for delta in Self.deltas(id, before: original, after: current) {
                let dayKey = ModelCodec.dayKey(delta.date)
                var day: TouchedDay
                if let known = days[dayKey] {
                    day = known
                } else {
                    let stored = try loadStat(dayKey) ?? (0, 0)
                    day = TouchedDay(original: stored, current: stored, position: entry.position)
                }
                day.current.total += delta.total
                day.current.completed += delta.completed
                day.position = max(day.position, entry.position)
                days[dayKey] = day
            }
        }
        for (dayKey, day) in days.sorted(by: { $0.key < $1.key }) where day.original != day.current {
            key.removeAll(keepingCapacity: true)
            key.appendBigEndian(dayKey)
            let date = try ModelCodec.day(fromKey: dayKey)
            if day.current.total > 0 {
                ModelCodec.encodeStat(total: day.current.total, completed: day.current.completed, into: &value)
                try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try txn.put(stats, key: k, value: v) } }
                changes?.append(.stat(DailyStat(date: date, total: day.current.total, completed: day.current.completed),
                                      position: day.position))
            } else {
                try txn.delete(stats, key: key)
                changes?.append(.statRemoved(date, position: day.position))
            }
        }
    }

    /// `daily-stats.by-user` key: user id ‖ todo id.
    private static func userKey(_ user: UUID, _ todo: UUID) -> [UInt8] {
        var key: [UInt8] = []
        key.appendID(user)
        key.appendID(todo)
        return key
    }

    private func loadStat(_ dayKey: UInt32) throws -> (total: Int, completed: Int)? {
        try withUnsafeBytes(of: dayKey.bigEndian) { key in
            try txn.get(stats, key: key).map { bytes in try ModelCodec.decodeStat(bytes) }
        }
    }
}

/// What the daily-stats projection keeps of a todo: the day it counts on, whether it counts
/// as completed, and its user (whose deletion takes it out).
struct TodoMark: Equatable, Sendable {
    var deadline: CalendarDay
    var isCompleted: Bool
    var userId: UUID?
}

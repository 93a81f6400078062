import ChronicleTodoDomain
import Foundation
import ChronicleLMDB

/// The per-day counts of live and completed todos (`todos.daily-stats`: day key → total,
/// completed; only days with a live todo), moved by a batch of the todos projection.
///
/// Counts are sums over the live todos, so each touched todo's net change (``DailyStatDelta``)
/// is all that matters: ``add(before:after:position:)`` takes one per todo, and
/// ``write(changes:)`` reads each day touched once and writes the days that changed, in key order.
struct DayCounts {
    private struct Day {
        var original: (total: Int, completed: Int)
        var current: (total: Int, completed: Int)
        var position: UInt64
    }

    private let txn: Transaction
    private let database: Database
    private var days: [UInt32: Day] = [:]

    init(txn: Transaction, database: Database) {
        self.txn = txn
        self.database = database
    }

    /// Counts a live todo going from `before` to `after` (nil: not live), by the event at `position`.
    mutating func add(before: Todo?, after: Todo?, position: UInt64) throws {
        // Most changes keep the day and the completion (a title, a tag): nothing moves.
        if let before, let after, before.deadline == after.deadline, before.isCompleted == after.isCompleted { return }
        for delta in DailyStatDelta.between(before: before, after: after) {
            let key = ModelCodec.dayKey(delta.date)
            var day: Day
            if let known = days[key] {
                day = known
            } else {
                let stored = try load(key) ?? (0, 0)
                day = Day(original: stored, current: stored, position: position)
            }
            day.current.total += delta.total
            day.current.completed += delta.completed
            day.position = max(day.position, position)
            days[key] = day
        }
    }

    /// Writes the days whose counts changed and, when `changes` is not nil, describes them there.
    func write(changes: inout [ReadModelChange]?) throws {
        var key = [UInt8](), value = [UInt8]()
        key.reserveCapacity(4)
        value.reserveCapacity(16)
        for (dayKey, day) in days.sorted(by: { $0.key < $1.key }) where day.original != day.current {
            key.removeAll(keepingCapacity: true)
            key.appendBigEndian(dayKey)
            let date = try ModelCodec.day(fromKey: dayKey)
            if day.current.total > 0 {
                ModelCodec.encodeStat(total: day.current.total, completed: day.current.completed, into: &value)
                try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try txn.put(database, key: k, value: v) } }
                changes?.append(.stat(DailyStat(date: date, total: day.current.total, completed: day.current.completed),
                                      position: day.position))
            } else {
                try txn.delete(database, key: key)
                changes?.append(.statRemoved(date, position: day.position))
            }
        }
    }

    private func load(_ dayKey: UInt32) throws -> (total: Int, completed: Int)? {
        try withUnsafeBytes(of: dayKey.bigEndian) { key in
            try txn.get(database, key: key).map { bytes in try ModelCodec.decodeStat(bytes) }
        }
    }
}

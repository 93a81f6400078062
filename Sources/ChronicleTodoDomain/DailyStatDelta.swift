import Foundation

/// A change to one day's ``DailyStat`` counts.
///
/// The one rule for how todo changes move stats, shared by the stored
/// projection, replay and `verify --deep`, so they cannot disagree.
///
/// ```swift
/// // An open todo moved from March 1 to March 2:
/// DailyStatDelta.between(before: todo, after: moved)
/// // [(2026-03-01, total -1, completed 0), (2026-03-02, total +1, completed 0)]
/// ```
public struct DailyStatDelta: Sendable, Equatable {
    /// The day whose counts change.
    public var date: CalendarDay
    /// The change to the day's count of live todos (negative when todos leave the day).
    public var total: Int
    /// The change to the day's count of completed todos.
    public var completed: Int

    /// Makes a delta from its parts.
    public init(date: CalendarDay, total: Int, completed: Int) {
        self.date = date
        self.total = total
        self.completed = completed
    }
}

extension DailyStatDelta {
    /// Deltas for a todo going from `before` to `after` (nil = not existing/deleted).
    ///
    /// Moving a deadline yields -1 on the old day and +1 on the new (completed too
    /// if completed); deleting a completed todo yields total -1, completed -1.
    /// Zero deltas are omitted. Result sorted by date.
    public static func between(before: Todo?, after: Todo?) -> [DailyStatDelta] {
        let removed = before.map { DailyStatDelta(date: $0.deadline, total: -1, completed: $0.isCompleted ? -1 : 0) }
        let added = after.map { DailyStatDelta(date: $0.deadline, total: 1, completed: $0.isCompleted ? 1 : 0) }
        switch (removed, added) {
        case let (removed?, added?) where removed.date == added.date:
            let net = DailyStatDelta(
                date: added.date, total: removed.total + added.total, completed: removed.completed + added.completed)
            return net.total == 0 && net.completed == 0 ? [] : [net]
        case let (removed?, added?):
            return removed.date < added.date ? [removed, added] : [added, removed]
        case let (removed?, nil):
            return [removed]
        case let (nil, added?):
            return [added]
        case (nil, nil):
            return []
        }
    }
}

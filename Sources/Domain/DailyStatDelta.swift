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
    public var date: CalendarDay
    public var total: Int
    public var completed: Int

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
        var byDay: [CalendarDay: DailyStatDelta] = [:]
        func add(_ todo: Todo, sign: Int) {
            var delta = byDay[todo.deadline] ?? DailyStatDelta(date: todo.deadline, total: 0, completed: 0)
            delta.total += sign
            delta.completed += todo.isCompleted ? sign : 0
            byDay[todo.deadline] = delta
        }
        if let before { add(before, sign: -1) }
        if let after { add(after, sign: +1) }
        return byDay.values
            .filter { $0.total != 0 || $0.completed != 0 }
            .sorted { $0.date < $1.date }
    }
}

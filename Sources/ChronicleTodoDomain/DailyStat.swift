import Foundation

/// How many live todos are due on a day, and how many of them are completed.
///
/// Derived only: the rows of the todo app's model's `DailyStat` aggregate (todos counted
/// by deadline), never written by a command.
///
/// ```swift
/// let stat = DailyStat(date: try CalendarDay(parsing: "2026-03-05"), total: 3, completed: 1)
/// // JSON: {"date":"2026-03-05","total":3,"completed":1}
/// ```
public struct DailyStat: Sendable, Equatable, Hashable, Codable, Identifiable {
    /// The day the todos are due.
    public var date: CalendarDay
    /// Live todos due on the day.
    public var total: Int
    /// Of those, the ones completed.
    public var completed: Int

    /// A day has at most one stat, so the day identifies it.
    public var id: CalendarDay { date }

    /// Makes a stat from its parts; the counts are not checked.
    public init(date: CalendarDay, total: Int, completed: Int) {
        self.date = date
        self.total = total
        self.completed = completed
    }

    private enum CodingKeys: String, CodingKey {
        case date, total, completed
    }
}

import ChronicleSchema
import Foundation
import UUIDText

/// The todo app's read models (users, todos, tags, daily stats) as a fold of its model shows
/// them: what `replay` prints and what `verify --deep` checks the stored models against.
///
/// ```swift
/// var fold = ChronicleModel.Snapshot(TodoAppModel.model)
/// for event in events { fold.apply(event) }
/// let shown = TodoAppSnapshot(fold)
/// shown.stats   // [DailyStat(date: 2026-03-01, total: 2, completed: 1), …]
/// ```
///
/// Every list is sorted as the stored models list it. Only the model's shown entities count:
/// a deleted user's todos are hidden with it, and a todo shows only its shown tags.
public struct TodoAppSnapshot: Sendable, Equatable {
    /// Shown users, by name, then id (lowercase).
    public let users: [User]
    /// Shown todos, by deadline, then id (lowercase); each with its shown tags.
    public let todos: [Todo]
    /// Shown tags, by ``Tag/foldedName(_:)``, then id (lowercase); a name that collided after a
    /// merge is shown with its suffix (`Work (2)`).
    public let tags: [Tag]
    /// The days with at least one shown todo, by date.
    public let stats: [DailyStat]

    /// The todo app's models as `fold` shows them. Entities the todo app does not know (a fold
    /// of another model) show nothing.
    public init(_ fold: ChronicleModel.Snapshot) {
        // `shown` keeps only the shown members of each set, so every tag a todo shows is shown.
        users = fold.shown("User").compactMap(User.init)
            .sorted { $0.name != $1.name ? $0.name < $1.name : $0.id.sortsBefore($1.id) }
        let shownTodos = fold.shown("Todo")
        todos = shownTodos.compactMap { Todo($0, isShownTag: { _ in true }) }
            .sorted { $0.deadline != $1.deadline ? $0.deadline < $1.deadline : $0.id.sortsBefore($1.id) }
        tags = fold.shown("Tag").compactMap(Tag.init)
            .map { (tag: $0, name: Tag.foldedName($0.name)) }
            .sorted { $0.name != $1.name ? $0.name < $1.name : $0.tag.id.sortsBefore($1.tag.id) }
            .map(\.tag)
        stats = (fold.rows(of: "DailyStat", among: shownTodos) ?? []).compactMap(DailyStat.init).sorted { $0.date < $1.date }
    }

    /// The shown user `id`, or nil.
    public func user(_ id: UUID) -> User? { users.first { $0.id == id } }

    /// The shown todo `id`, or nil.
    public func todo(_ id: UUID) -> Todo? { todos.first { $0.id == id } }

    /// The shown tag `id`, or nil.
    public func tag(_ id: UUID) -> Tag? { tags.first { $0.id == id } }

    /// The stats of `day`, or nil when no shown todo is due that day.
    public func stat(on day: CalendarDay) -> DailyStat? { stats.first { $0.date == day } }
}

extension DailyStat {
    /// The stat a `DailyStat` row holds; nil for a row without its date and counts.
    init?(_ row: ChronicleModel.AggregateRow) {
        guard case .text(let date) = row.key, let day = try? CalendarDay(parsing: date),
              case .integer(let total)? = row.measures["total"], case .integer(let completed)? = row.measures["completed"]
        else { return nil }
        self.init(date: day, total: total, completed: completed)
    }
}

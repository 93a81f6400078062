/// The read models the log is projected into, by the name the CLI and the store use.
///
/// ```swift
/// ProjectionName(rawValue: "daily-stats")   // .dailyStats
/// try models.checkpoint(of: .todos)          // the last log position the todos model includes
/// ```
public enum ProjectionName: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    /// Users by id, listed by name.
    case users
    /// Todos by id, with indexes by deadline and by user.
    case todos
    /// Per-day counts of live and completed todos.
    case dailyStats = "daily-stats"
    /// Tags by id, listed by case-folded name.
    case tags
    /// What merges overruled of this store's writes (see ``MergeConflict``).
    case conflicts

    public var description: String { rawValue }

    /// The projection's code: its version and its fold.
    var projection: any Projection.Type {
        switch self {
        case .users: UsersProjection.self
        case .todos: TodosProjection.self
        case .dailyStats: DailyStatsProjection.self
        case .tags: TagsProjection.self
        case .conflicts: ConflictsProjection.self
        }
    }
}

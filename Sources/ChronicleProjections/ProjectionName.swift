/// The read models the log is projected into, by the name the CLI and the store use.
///
/// ```swift
/// ProjectionName(rawValue: "daily-stats")   // .dailyStats
/// try models.checkpoint(of: .todos)          // the last log position the todos model includes
/// ```
///
/// Daily stats are derived from the todos: the todos projection counts them from the changes
/// of its todos, in the same transactions, so the two models share one state (slot, version,
/// checkpoint) and are rebuilt together.
public enum ProjectionName: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    /// Users by id, listed by name.
    case users
    /// Todos by id, with indexes by deadline and by user.
    case todos
    /// Per-day counts of live and completed todos (written by the todos projection).
    case dailyStats = "daily-stats"
    /// Tags by id, listed by case-folded name.
    case tags
    /// What merges overruled of this store's writes (see ``MergeConflict``).
    case conflicts

    public var description: String { rawValue }

    /// The projection whose transactions write this model (itself, but for a derived model).
    var builder: ProjectionName { self == .dailyStats ? .todos : self }

    /// The models with a projection of their own: each has a state, two slots and a build.
    static let builders = allCases.filter { $0.builder == $0 }

    /// The projections that build `models` (each once, in their order).
    static func builders(of models: [ProjectionName]) -> [ProjectionName] {
        builders.filter { builder in models.contains { $0.builder == builder } }
    }

    /// The models `builder` writes: itself and the models derived from it.
    static func built(by builder: ProjectionName) -> [ProjectionName] {
        allCases.filter { $0.builder == builder }
    }

    /// The projection's code (the builder's, for a derived model): its version and its fold.
    var projection: any Projection.Type {
        switch builder {
        case .users: UsersProjection.self
        case .todos, .dailyStats: TodosProjection.self
        case .tags: TagsProjection.self
        case .conflicts: ConflictsProjection.self
        }
    }

    /// This model's databases among its builder's `databaseNames` (all of them, but for a derived model).
    var databaseNames: [String] {
        self == .dailyStats ? [TodosProjection.dailyStatsDatabase] : projection.databaseNames
    }
}

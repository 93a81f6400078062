import Chronicle
import ChronicleLog
import Foundation
import ChronicleProjections

/// What a rebuild built, summed up the same way for Chronicle's stored entities and GRDB's
/// tables: read after the timed section (and after the peak memory
/// is taken), so that two systems rebuilt from one log must agree. A fold that loses events
/// shows here, not only as a speed-up.
enum RebuiltContents {
    /// The live todos, the days with todos, and the daily stats' totals of `task`'s rebuild;
    /// for a notebook's workload, ``NotebookContents``'s summary; nil for a system that has no
    /// such models.
    static func summary(_ task: ChildTask) throws -> String? {
        if task.workload.isNotebook { return try NotebookContents.summary(task) }
        guard task.workload == .rebuild else { return nil }
        switch task.system {
        case .chronicle:
            let log = try EventLog(path: task.source!)
            defer { log.close() }
            let states = try ModelStates(path: task.directory, model: TodoAppModel.model, log: log)
            let rows = try states.rows(of: "DailyStat", from: nil, through: nil)
            func sum(_ measure: String) -> Int {
                rows.reduce(0) { sum, row in if case .integer(let count)? = row.measures[measure] { sum + count } else { sum } }
            }
            return line(todos: try states.shown("Todo").count, days: rows.count, total: sum("total"), completed: sum("completed"))
        default:
            return nil
        }
    }

    private static func line(todos: Int, days: Int, total: Int, completed: Int) -> String {
        "\(todos) todos; \(days) days, \(total) due, \(completed) completed"
    }
}

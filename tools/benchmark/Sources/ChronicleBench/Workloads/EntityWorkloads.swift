import Chronicle
import ChronicleLog
import Foundation
import ChronicleProjections

/// Chronicle's read model (`ModelStates`, the stored entities) of the todo app's declared
/// model (`TodoAppModel.model`) on the log `append-batch` left: what the store rebuilds and
/// reads, and what any app's model gets, measured on the data the other systems hold.
enum EntityWorkloads {
    /// Folds the whole log the append left (`append-batch`, or the notebook's) into fresh
    /// entity states of `model`.
    static func rebuild(_ task: ChildTask, model: ChronicleModel = TodoAppModel.model) throws -> (Int, Double) {
        let log = try EventLog(path: task.source!)
        defer { log.close() }
        let states = try ModelStates(path: task.directory, model: model, log: log)
        var watch = Stopwatch()
        let position = try watch.measure { try states.rebuild() }
        return (Int(position), watch.seconds)
    }

    /// The point reads, through the generic queries: a todo by id, a day's stats (the
    /// `DailyStat` aggregate's row, through the index of the field it groups by), a day's
    /// todos. With `asRecords`, each todo is read where it is stored into the todo app's `Todo`
    /// (a `ChronicleRecord`, as `ChronicleStore.todos(on:)` reads it) instead of an
    /// `EntityState`; a day's stats are the aggregate's rows either way.
    static func reads(_ task: ChildTask, keys: ReadKeys, asRecords: Bool = false) async throws -> (Int, Double) {
        let log = try EventLog(path: task.log!)
        defer { log.close() }
        let states = try ModelStates(path: task.source!, model: TodoAppModel.model, log: log)
        let days = keys.days.map { ChronicleModel.FieldValue.text($0.description) }
        func todo(_ id: UUID) throws -> Bool {
            try asRecords ? states.shown(Todo.self, id: id) != nil : states.shown("Todo", id: id) != nil
        }
        func todos(on day: ChronicleModel.FieldValue) throws -> Int {
            try asRecords ? states.shown(Todo.self, where: "deadline", from: day, through: day).count
                : states.shown("Todo", where: "deadline", from: day, through: day).count
        }
        var watch = Stopwatch()
        var found = 0
        switch task.workload {
        case .readTodo:
            try watch.measure {
                for i in 0..<task.count where try todo(keys.todoIDs[i % keys.todoIDs.count]) { found += 1 }
            }
        case .readDayStats:
            try watch.measure {
                for i in 0..<task.count {
                    let day = days[i % days.count]
                    found += try states.rows(of: "DailyStat", from: day, through: day).count
                }
            }
        case .readDayTodos:
            try watch.measure {
                for i in 0..<task.count { found += try todos(on: days[i % days.count]) }
            }
        default:
            throw BenchError.unsupported("\(task.workload.rawValue) is not a read")
        }
        progress("    \(task.system.rawValue): \(task.count) reads, \(found) rows")
        return (task.count, watch.seconds)
    }
}

import Chronicle
import ChronicleLog
import Foundation
import ChronicleProjections

/// The stored entities of a declared model (`ModelStates`) on the same log: the todo app's
/// model declared (`TodoAppModel.model`), read by the generic fold, beside the todo app's own
/// projections. What any app's model gets, measured on the data the other systems hold.
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
        if let pairedModels {
            let models = try ReadModels(path: pairedModels)
            let (own, declared): (Double, Double)
            switch task.workload {
            case .readTodo:
                let ids = keys.todoIDs
                (own, declared) = try paired(count: task.count,
                                             own: { try models.todo(ids[$0 % ids.count]) == nil ? 0 : 1 },
                                             declared: { try todo(ids[$0 % ids.count]) ? 1 : 0 })
            case .readDayStats:
                (own, declared) = try paired(count: task.count,
                                             own: { try models.stats(from: keys.days[$0 % keys.days.count], to: keys.days[$0 % keys.days.count]).count },
                                             declared: { try states.rows(of: "DailyStat", from: days[$0 % days.count], through: days[$0 % days.count]).count })
            default:
                (own, declared) = try paired(count: task.count, own: { try models.todos(on: keys.days[$0 % keys.days.count]).count },
                                             declared: { try todos(on: days[$0 % days.count]) })
            }
            progress(String(format: "    paired: todo models %.3f s, declared %.3f s, ratio %.3f", own, declared, own / declared))
            return (task.count, declared)
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

extension EntityWorkloads {
    /// The todo app's own models (a `models-chronicle-*` folder) to read from beside the
    /// declared model's, in the same process (`CHRONICLE_BENCH_PAIRED_MODELS`).
    static var pairedModels: String? { ProcessInfo.processInfo.environment["CHRONICLE_BENCH_PAIRED_MODELS"] }

    /// Reads `count` times from each side (`own` and `declared` each read number `i` and
    /// return the rows found), in alternating blocks of 50, each side's time summed: a virtual
    /// machine's neighbours slow both alike, where separate runs differed by a third. Returns
    /// the seconds of each side.
    static func paired(count: Int, own: (Int) throws -> Int, declared: (Int) throws -> Int) throws -> (own: Double, declared: Double) {
        var ownTime: UInt64 = 0, declaredTime: UInt64 = 0, difference = 0
        for block in stride(from: 0, to: count, by: 50) {
            let range = block..<min(count, block + 50)
            let start = DispatchTime.now().uptimeNanoseconds
            for i in range { difference += try own(i) }
            let middle = DispatchTime.now().uptimeNanoseconds
            for i in range { difference -= try declared(i) }
            let end = DispatchTime.now().uptimeNanoseconds
            ownTime += middle - start
            declaredTime += end - middle
        }
        guard difference == 0 else { throw BenchError.unsupported("the two sides found different rows (\(difference))") }
        return (Double(ownTime) / 1e9, Double(declaredTime) / 1e9)
    }
}

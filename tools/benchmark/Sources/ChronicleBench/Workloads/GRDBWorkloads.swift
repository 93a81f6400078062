import ChronicleTodoDomain
import Foundation
import GRDB

/// The GRDB baseline's side of every workload.
enum GRDBWorkloads {
    /// One transaction (one WAL fsync) per batch, into tables made by `migrator`.
    static func appendBatch(_ task: ChildTask, migrator: DatabaseMigrator = GRDBStore.migrator) async throws -> (Int, Double) {
        let store = try GRDBStore(path: task.directory, migrator: migrator)
        var watch = Stopwatch()
        let done = try await forEachBatch(task) { batch in
            try watch.measure {
                let appended: Int = try store.pool.write { db in try GRDBStore.append(batch, db) }
                precondition(appended == batch.count, "GRDB skipped events of a fresh batch")
            }
        }
        return (done, watch.seconds)
    }

    /// One transaction per event; concurrent writers queue on the pool's single writer.
    static func appendSingle(_ task: ChildTask) async throws -> (Int, Double) {
        let store = try GRDBStore(path: task.directory)
        let work = lanes(try loadEvents(task), writers: task.writers)
        return try await runLanes(work, timeLimit: task.timeLimit) { event in
            _ = try await store.pool.write { db in try GRDBStore.append(CollectionOfOne(event), db) }
        }
    }

    /// Rebuilds users, todos and daily stats from the whole log in one write transaction
    /// (readers keep the old models until it commits: WAL snapshot isolation).
    static func rebuild(_ task: ChildTask) throws -> (Int, Double) {
        let store = try GRDBStore(path: task.source!)
        try store.resetModels()
        var watch = Stopwatch()
        let count = try watch.measure {
            try store.pool.write { db in try GRDBProjector(db).replayLog() }
        }
        return (count, watch.seconds)
    }

    static func reads(_ task: ChildTask, keys: ReadKeys) throws -> (Int, Double) {
        let store = try GRDBStore(path: task.source!)
        var watch = Stopwatch()
        var found = 0
        switch task.workload {
        case .readTodo:
            try watch.measure {
                for i in 0..<task.count {
                    let id = keys.todoIDs[i % keys.todoIDs.count]
                    if try store.pool.read({ db in try GRDBQueries.todo(id, db) }) != nil { found += 1 }
                }
            }
        case .readDayStats:
            try watch.measure {
                for i in 0..<task.count {
                    let day = keys.days[i % keys.days.count].description
                    found += try store.pool.read { db in try GRDBQueries.stats(from: day, to: day, db) }.count
                }
            }
        case .readDayTodos:
            try watch.measure {
                for i in 0..<task.count {
                    let day = keys.days[i % keys.days.count].description
                    found += try store.pool.read { db in try GRDBQueries.todos(on: day, db) }.count
                }
            }
        default:
            throw BenchError.unsupported("\(task.workload.rawValue) is not a read")
        }
        progress("    grdb: \(task.count) reads, \(found) rows")
        return (task.count, watch.seconds)
    }
}

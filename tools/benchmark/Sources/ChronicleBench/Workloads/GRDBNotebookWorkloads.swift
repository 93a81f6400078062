import ChronicleSchema
import Foundation
import GRDB

/// The GRDB baseline's side of the notebook's workloads (system `grdb-notebook`), on the
/// tables of ``GRDBNotebookSchema``.
enum GRDBNotebookWorkloads {
    /// The log's append, as the todo baseline's: one transaction (one WAL fsync) per batch.
    static func appendBatch(_ task: ChildTask) async throws -> (Int, Double) {
        try await GRDBWorkloads.appendBatch(task, migrator: GRDBNotebookSchema.migrator)
    }

    /// The notebook kept in tables alone, no log: per batch of 1,000 events, one transaction
    /// (one WAL fsync) applying them. The events are read by the model's reader before the
    /// clock starts, as an app would have its changes as values already.
    static func applyBatch(_ task: ChildTask) async throws -> (Int, Double) {
        let store = try GRDBStore(path: task.directory, migrator: GRDBNotebookSchema.migrator)
        let reader = ChronicleModel.EventReader(NotebookModel.model)
        var watch = Stopwatch()
        let done = try await forEachBatch(task) { batch in
            let events = try batch.map { try reader.read(type: $0.type, stream: $0.stream, data: $0.data) }
            try watch.measure {
                try store.pool.write { db in
                    let applier = try GRDBNotebookApplier(db)
                    for event in events { try applier.apply(event) }
                }
            }
        }
        return (done, watch.seconds)
    }

    /// Replays the whole log `notes-append-batch` left into emptied tables in one transaction.
    static func rebuild(_ task: ChildTask) throws -> (Int, Double) {
        let store = try GRDBStore(path: task.source!, migrator: GRDBNotebookSchema.migrator)
        try GRDBNotebookSchema.reset(store)
        var watch = Stopwatch()
        let count = try watch.measure {
            try store.pool.write { db in try GRDBNotebookApplier(db).replayLog() }
        }
        return (count, watch.seconds)
    }

    /// The same point reads as Chronicle's (``NotebookWorkloads/reads(_:keys:)``), each one read transaction.
    static func reads(_ task: ChildTask, keys: NotebookReadKeys) throws -> (Int, Double, NotebookReadTally) {
        let store = try GRDBStore(path: task.source!, migrator: GRDBNotebookSchema.migrator)
        var tally = NotebookReadTally()
        func add(_ notes: [GRDBNote]) {
            for note in notes { tally.add(pinned: note.pinned, labels: note.labels.count, cents: note.costCents) }
        }
        var watch = Stopwatch()
        switch task.workload {
        case .notesReadNote:
            try watch.measure {
                for i in 0..<task.count {
                    let id = keys.noteIDs[i % keys.noteIDs.count]
                    if let note = try store.pool.read({ db in try GRDBNotebookQueries.note(id, db) }) { add([note]) }
                }
            }
        case .notesReadFolder:
            try watch.measure {
                for i in 0..<task.count {
                    let folder = keys.folderIDs[i % keys.folderIDs.count]
                    add(try store.pool.read { db in try GRDBNotebookQueries.notes(inFolder: folder, db) })
                }
            }
        case .notesReadDay:
            try watch.measure {
                for i in 0..<task.count {
                    let day = keys.days[i % keys.days.count]
                    add(try store.pool.read { db in try GRDBNotebookQueries.notes(on: day, db) })
                }
            }
        case .notesReadDayStats:
            try watch.measure {
                for i in 0..<task.count {
                    let day = keys.days[i % keys.days.count]
                    if let row = try store.pool.read({ db in try GRDBNotebookQueries.notesPerDay(day, db) }) {
                        tally.add(dayRow: row.notes, pinned: row.pinned, cents: row.cents)
                    }
                }
            }
        default:
            throw BenchError.unsupported("\(task.workload.rawValue) is not a read of the notebook")
        }
        return (task.count, watch.seconds, tally)
    }
}

import Chronicle
import ChronicleLog
import Foundation

/// Chronicle's side of the notebook's workloads (system `chronicle-notebook`): the notebook's
/// stored entities (`ModelStates` of ``NotebookModel``), through the public APIs. Its
/// append-batch is the todo data set's (``ChronicleLogWorkloads/appendBatch(_:withKeys:)``) on
/// the notebook's events.
enum NotebookWorkloads {
    /// The folders of a store that `notes-apply-batch` fills: its log and its entities.
    static func logPath(_ directory: String) -> String { directory + "/log" }
    static func statesPath(_ directory: String) -> String { directory + "/entities" }

    /// Per batch of 1,000 events: one durable append to a fresh log, then the entities
    /// brought up to it (`catchUp`, one durable write transaction): what a write costs an app
    /// that shows what it wrote.
    static func applyBatch(_ task: ChildTask) async throws -> (Int, Double) {
        let log = try EventLog(path: logPath(task.directory))
        defer { log.close() }
        let states = try ModelStates(path: statesPath(task.directory), model: NotebookModel.model, log: log)
        var watch = Stopwatch()
        let done = try await forEachBatch(task) { batch in
            try await watch.measureAsync {
                _ = try await log.append(batch.map(\.streamAppend))
                try states.catchUp()
            }
        }
        return (done, watch.seconds)
    }

    /// Folds the whole log `notes-append-batch` left into fresh entity states.
    static func rebuild(_ task: ChildTask) throws -> (Int, Double) {
        try EntityWorkloads.rebuild(task, model: NotebookModel.model)
    }

    /// The point reads on the rebuilt states, each its own read transaction: a note by id, a
    /// folder's notes (through the index of `folderId`), a day's notes (through the index of
    /// `day`), each note read into ``NoteRecord``; a day's `NotesPerDay` row.
    static func reads(_ task: ChildTask, keys: NotebookReadKeys) throws -> (Int, Double, NotebookReadTally) {
        let log = try EventLog(path: task.log!)
        defer { log.close() }
        let states = try ModelStates(path: task.source!, model: NotebookModel.model, log: log)
        let folders = keys.folderIDs.map { ChronicleModel.FieldValue.text($0.uuidString.lowercased()) }
        let days = keys.days.map { ChronicleModel.FieldValue.text($0) }
        var tally = NotebookReadTally()
        func add(_ notes: [NoteRecord]) {
            for note in notes { tally.add(pinned: note.pinned, labels: note.labels.count, cents: note.cost.flatMap(DecimalCents.cents)) }
        }
        var watch = Stopwatch()
        switch task.workload {
        case .notesReadNote:
            try watch.measure {
                for i in 0..<task.count {
                    if let note = try states.shown(NoteRecord.self, id: keys.noteIDs[i % keys.noteIDs.count]) { add([note]) }
                }
            }
        case .notesReadFolder:
            try watch.measure {
                for i in 0..<task.count {
                    let folder = folders[i % folders.count]
                    add(try states.shown(NoteRecord.self, where: "folderId", from: folder, through: folder))
                }
            }
        case .notesReadDay:
            try watch.measure {
                for i in 0..<task.count {
                    let day = days[i % days.count]
                    add(try states.shown(NoteRecord.self, where: "day", from: day, through: day))
                }
            }
        case .notesReadDayStats:
            try watch.measure {
                for i in 0..<task.count {
                    let day = days[i % days.count]
                    for row in try states.rows(of: "NotesPerDay", from: day, through: day) {
                        let measures = NotesPerDayMeasures(row)
                        tally.add(dayRow: measures.notes, pinned: measures.pinned, cents: measures.cents)
                    }
                }
            }
        default:
            throw BenchError.unsupported("\(task.workload.rawValue) is not a read of the notebook")
        }
        return (task.count, watch.seconds, tally)
    }
}

/// A `NotesPerDay` row's measures as numbers: the notes, the pinned ones, the costs' sum in cents.
struct NotesPerDayMeasures {
    var notes = 0
    var pinned = 0
    var cents = 0

    init(_ row: ChronicleModel.AggregateRow) {
        if case .integer(let count)? = row.measures["notes"] { notes = count }
        if case .integer(let count)? = row.measures["pinned"] { pinned = count }
        if case .text(let sum)? = row.measures["spent"] { cents = DecimalCents.cents(sum) ?? 0 }
    }
}

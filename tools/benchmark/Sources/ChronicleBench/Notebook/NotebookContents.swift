import Chronicle
import ChronicleLog
import Foundation
import GRDB

/// What a notebook's rebuild or apply left, summed up alike on both systems after the timed
/// section, so that they must agree (a fold that loses events shows here, not as a speed-up):
/// the shown folders, labels and notes, the pinned notes, the shown labels of the shown notes,
/// and the `NotesPerDay` rows (days, notes, pinned, cents spent). Each system's stored rows are
/// checked against the rows its shown notes make, so a row kept up wrongly fails too.
struct NotebookContents: Equatable, CustomStringConvertible {
    var folders = 0
    var labels = 0
    var notes = 0
    var pinned = 0
    var memberships = 0
    /// Per day with shown notes: notes, pinned, cents.
    var days: [String: DayTotals] = [:]

    struct DayTotals: Equatable {
        var notes = 0
        var pinned = 0
        var cents = 0
    }

    var description: String {
        let totals = days.values.reduce(into: DayTotals()) { sum, day in
            sum.notes += day.notes
            sum.pinned += day.pinned
            sum.cents += day.cents
        }
        return "\(folders) folders, \(labels) labels, \(notes) notes (\(pinned) pinned, \(memberships) labels); "
            + "\(days.count) days, \(totals.notes) notes, \(totals.pinned) pinned, \(totals.cents) cents spent; "
            + "rows digest \(String(daysDigest, radix: 16))"
    }

    /// FNV-1a over every day's row, in day order: two systems whose totals agree but whose
    /// rows differ give different digests.
    var daysDigest: UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for day in days.keys.sorted() {
            let row = days[day]!
            for byte in "\(day):\(row.notes):\(row.pinned):\(row.cents);".utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
            }
        }
        return hash
    }

    /// The summary of `task`'s rebuild or apply; nil for another workload.
    static func summary(_ task: ChildTask) throws -> String? {
        let stores: (log: String, states: String)? = switch task.workload {
        case .notesRebuild: (task.source ?? "", task.directory)
        case .notesApplyBatch: (NotebookWorkloads.logPath(task.directory), NotebookWorkloads.statesPath(task.directory))
        default: nil
        }
        guard let stores else { return nil }
        switch task.system {
        case .chronicleNotebook: return try chronicle(log: stores.log, states: stores.states).description
        case .grdbNotebook: return try grdb(task.workload == .notesRebuild ? stores.log : task.directory).description
        default: return nil
        }
    }

    private static func chronicle(log path: String, states statesPath: String) throws -> NotebookContents {
        let log = try EventLog(path: path)
        defer { log.close() }
        let states = try ModelStates(path: statesPath, model: NotebookModel.model, log: log)
        let unread = try states.unread()
        if unread.count > 0 { throw BenchError.child("the notebook's model could not read \(unread.count) events: \(unread.first ?? "")") }
        var contents = NotebookContents(folders: try states.shown("Folder").count, labels: try states.shown("Label").count)
        var fromNotes: [String: DayTotals] = [:]
        for note in try states.shown(NoteRecord.self) {
            let cents = note.cost.flatMap(DecimalCents.cents) ?? 0
            contents.add(note: note.day, pinned: note.pinned, labels: note.labels.count, cents: cents, into: &fromNotes)
        }
        for row in try states.rows(of: "NotesPerDay", from: nil, through: nil) {
            guard case .text(let day) = row.key else { continue }
            let measures = NotesPerDayMeasures(row)
            contents.days[day] = DayTotals(notes: measures.notes, pinned: measures.pinned, cents: measures.cents)
        }
        try contents.check(against: fromNotes, system: "chronicle-notebook")
        return contents
    }

    private static func grdb(_ path: String) throws -> NotebookContents {
        let store = try GRDBStore(path: path, migrator: GRDBNotebookSchema.migrator)
        return try store.pool.read { db in
            var contents = NotebookContents(folders: try Int.fetchOne(db, sql: "SELECT count(*) FROM folders WHERE deleted = 0") ?? 0,
                                            labels: try Int.fetchOne(db, sql: "SELECT count(*) FROM labels WHERE deleted = 0") ?? 0)
            var fromNotes: [String: DayTotals] = [:]
            let notes = try GRDBNote.fetchCursor(db, sql: """
                SELECT n.id, n.body, n.day, n.cost_cents, n.pinned, n.folder_id FROM notes n LEFT JOIN folders f ON f.id = n.folder_id
                WHERE n.deleted = 0 AND coalesce(f.deleted, 0) = 0
                """)
            let labelCounts = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: """
                SELECT nl.note_id, count(*) FROM note_labels nl JOIN labels l ON l.id = nl.label_id WHERE l.deleted = 0 GROUP BY nl.note_id
                """).map { ($0[0] as UUID, $0[1] as Int) })
            while let note = try notes.next() {
                contents.add(note: note.day, pinned: note.pinned, labels: labelCounts[note.id] ?? 0, cents: note.costCents ?? 0, into: &fromNotes)
            }
            for row in try Row.fetchAll(db, sql: "SELECT day, notes, pinned, spent_cents FROM notes_per_day WHERE notes > 0") {
                contents.days[row[0]] = DayTotals(notes: row[1], pinned: row[2], cents: row[3])
            }
            try contents.check(against: fromNotes, system: "grdb-notebook")
            return contents
        }
    }

    private mutating func add(note day: String, pinned: Bool, labels: Int, cents: Int, into days: inout [String: DayTotals]) {
        notes += 1
        if pinned { self.pinned += 1 }
        memberships += labels
        days[day, default: DayTotals()].notes += 1
        days[day, default: DayTotals()].pinned += pinned ? 1 : 0
        days[day, default: DayTotals()].cents += cents
    }

    /// Throws unless the stored rows are those the shown notes make.
    private func check(against fromNotes: [String: DayTotals], system: String) throws {
        guard days == fromNotes else {
            let wrong = Set(days.keys).union(fromNotes.keys).filter { days[$0] != fromNotes[$0] }.sorted()
            throw BenchError.child("\(system): NotesPerDay rows differ from the shown notes on \(wrong.count) days, first \(wrong.first ?? "")"
                                   + ": stored \(String(describing: days[wrong.first ?? ""])), from the notes \(String(describing: fromNotes[wrong.first ?? ""]))")
        }
    }
}

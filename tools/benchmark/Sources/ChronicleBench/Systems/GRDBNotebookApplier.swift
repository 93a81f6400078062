import ChronicleSchema
import Foundation
import GRDB

/// Applies the notebook's events, as the model reads them, to its SQL tables
/// (``GRDBNotebookSchema``) in the caller's transaction, one or a few cached statements per
/// event, keeping `notes_per_day` up: a note's share of its day's row (1 note, pinned or not,
/// its cost) is taken away before a change that may move it and added back after, while the
/// note is shown; a folder's deletion or restoration moves all its live notes' shares in one
/// statement.
struct GRDBNotebookApplier {
    private let db: Database
    private let insertFolder, renameFolder, setFolderDeleted, shiftFolderNotes: Statement
    private let insertLabel, renameLabel, setLabelDeleted: Statement
    private let insertNote, folderDeleted, noteShare, setPinned, setNoteDeleted, addLabel, removeLabel: Statement
    private let updateNote: [String: Statement]
    private let bumpDay, saveCheckpoint: Statement

    /// A shown note's share of its day's row.
    private struct Share {
        var day: String
        var pinned: Int
        var cents: Int
    }

    init(_ db: Database) throws {
        self.db = db
        insertFolder = try db.cachedStatement(sql: "INSERT INTO folders (id, name) VALUES (?, ?)")
        renameFolder = try db.cachedStatement(sql: "UPDATE folders SET name = ? WHERE id = ?")
        setFolderDeleted = try db.cachedStatement(sql: "UPDATE folders SET deleted = ? WHERE id = ? AND deleted <> ?")
        shiftFolderNotes = try db.cachedStatement(sql: """
            INSERT INTO notes_per_day (day, notes, pinned, spent_cents)
            SELECT day, ? * count(*), ? * sum(pinned), ? * coalesce(sum(cost_cents), 0)
            FROM notes WHERE folder_id = ? AND deleted = 0 GROUP BY day
            ON CONFLICT (day) DO UPDATE SET notes = notes + excluded.notes, pinned = pinned + excluded.pinned,
                spent_cents = spent_cents + excluded.spent_cents
            """)
        insertLabel = try db.cachedStatement(sql: "INSERT INTO labels (id, name) VALUES (?, ?)")
        renameLabel = try db.cachedStatement(sql: "UPDATE labels SET name = ? WHERE id = ?")
        setLabelDeleted = try db.cachedStatement(sql: "UPDATE labels SET deleted = ? WHERE id = ? AND deleted <> ?")
        insertNote = try db.cachedStatement(sql: "INSERT INTO notes (id, body, day, cost_cents, folder_id) VALUES (?, ?, ?, ?, ?)")
        folderDeleted = try db.cachedStatement(sql: "SELECT deleted FROM folders WHERE id = ?")
        noteShare = try db.cachedStatement(sql: """
            SELECT n.day, n.pinned, coalesce(n.cost_cents, 0) FROM notes n LEFT JOIN folders f ON f.id = n.folder_id
            WHERE n.id = ? AND n.deleted = 0 AND coalesce(f.deleted, 0) = 0
            """)
        var updates: [String: Statement] = [:]
        for (field, column) in [("body", "body"), ("day", "day"), ("cost", "cost_cents"), ("folderId", "folder_id")] {
            updates[field] = try db.cachedStatement(sql: "UPDATE notes SET \(column) = ? WHERE id = ?")
        }
        updateNote = updates
        setPinned = try db.cachedStatement(sql: "UPDATE notes SET pinned = ? WHERE id = ? AND pinned <> ?")
        setNoteDeleted = try db.cachedStatement(sql: "UPDATE notes SET deleted = ? WHERE id = ? AND deleted <> ?")
        addLabel = try db.cachedStatement(sql: "INSERT INTO note_labels (note_id, label_id) VALUES (?, ?) ON CONFLICT DO NOTHING")
        removeLabel = try db.cachedStatement(sql: "DELETE FROM note_labels WHERE note_id = ? AND label_id = ?")
        bumpDay = try db.cachedStatement(sql: """
            INSERT INTO notes_per_day (day, notes, pinned, spent_cents) VALUES (?, ?, ?, ?)
            ON CONFLICT (day) DO UPDATE SET notes = notes + excluded.notes, pinned = pinned + excluded.pinned,
                spent_cents = spent_cents + excluded.spent_cents
            """)
        saveCheckpoint = try db.cachedStatement(sql: """
            INSERT INTO projection_state (name, position) VALUES ('notebook', ?)
            ON CONFLICT (name) DO UPDATE SET position = excluded.position
            """)
    }

    /// Replays the whole log into the (empty) tables in the caller's transaction, each event
    /// read by the model's reader (as the todo baseline reads its events); returns the events read.
    func replayLog() throws -> Int {
        let reader = ChronicleModel.EventReader(NotebookModel.model)
        let events = try Row.fetchCursor(db, sql: "SELECT position, type, stream, data FROM events ORDER BY position")
        var count = 0
        var last: Int64 = 0
        while let row = try events.next() {
            last = row[0]
            let type: String = row[1], stream: String = row[2], data: Data = row[3]
            if let event = try? reader.read(type: type, stream: stream, data: data) { try apply(event) }
            count += 1
        }
        try saveCheckpoint.execute(arguments: [last])
        return count
    }

    func apply(_ event: ChronicleModel.Event) throws {
        switch event.entity {
        case "Note": try applyToNote(event)
        case "Folder": try applyToFolder(event)
        case "Label": try applyToLabel(event)
        default: break
        }
    }

    private func applyToFolder(_ event: ChronicleModel.Event) throws {
        switch event.change {
        case .created(let values):
            try insertFolder.execute(arguments: [event.id, Self.text(values["name"])])
        case .updated(let values):
            if let name = Self.text(values["name"]) { try renameFolder.execute(arguments: [name, event.id]) }
        case .deleted, .restored:
            let deleted = event.change == .deleted
            try setFolderDeleted.execute(arguments: [deleted, event.id, deleted])
            // Its live notes are hidden with it, or shown again.
            if db.changesCount > 0 {
                let sign = deleted ? -1 : 1
                try shiftFolderNotes.execute(arguments: [sign, sign, sign, event.id])
            }
        case .set, .added, .removed:
            break
        }
    }

    private func applyToLabel(_ event: ChronicleModel.Event) throws {
        switch event.change {
        case .created(let values):
            try insertLabel.execute(arguments: [event.id, Self.text(values["name"])])
        case .updated(let values):
            if let name = Self.text(values["name"]) { try renameLabel.execute(arguments: [name, event.id]) }
        case .deleted, .restored:
            let deleted = event.change == .deleted
            try setLabelDeleted.execute(arguments: [deleted, event.id, deleted])
        case .set, .added, .removed:
            break
        }
    }

    private func applyToNote(_ event: ChronicleModel.Event) throws {
        let id = event.id
        switch event.change {
        case .created(let values):
            let day = Self.text(values["day"]) ?? ""
            let cents = Self.text(values["cost"]).flatMap(DecimalCents.cents)
            let folder = Self.text(values["folderId"]).flatMap(UUID.init(uuidString:))
            try insertNote.execute(arguments: [id, Self.text(values["body"]), day, cents, folder])
            let hidden = try folder.map { try Bool.fetchOne(folderDeleted, arguments: [$0]) ?? false } ?? false
            if !hidden { try bump(Share(day: day, pinned: 0, cents: cents ?? 0), by: 1) }
        case .updated(let values):
            // The body moves no share; the day, the cost and the folder may.
            let movesShare = values.keys.contains { $0 != "body" }
            let before = movesShare ? try share(of: id) : nil
            for (field, value) in values {
                guard let update = updateNote[field] else { continue }
                try update.execute(arguments: [Self.column(field, value), id])
            }
            if movesShare {
                if let before { try bump(before, by: -1) }
                if let after = try share(of: id) { try bump(after, by: 1) }
            }
        case .set(_, let on):
            try setPinned.execute(arguments: [on, id, on])
            if db.changesCount > 0, let shown = try share(of: id) {
                try bump(Share(day: shown.day, pinned: 1, cents: 0), by: on ? 1 : -1, notes: 0)
            }
        case .added(_, let member):
            try addLabel.execute(arguments: [id, member])
        case .removed(_, let member):
            try removeLabel.execute(arguments: [id, member])
        case .deleted:
            let before = try share(of: id)
            try setNoteDeleted.execute(arguments: [true, id, true])
            if db.changesCount > 0, let before { try bump(before, by: -1) }
        case .restored:
            try setNoteDeleted.execute(arguments: [false, id, false])
            if db.changesCount > 0, let after = try share(of: id) { try bump(after, by: 1) }
        }
    }

    /// The note's share of its day's row while it is shown; nil when it is not.
    private func share(of id: UUID) throws -> Share? {
        guard let row = try Row.fetchOne(noteShare, arguments: [id]) else { return nil }
        return Share(day: row[0], pinned: row[1], cents: row[2])
    }

    /// Adds `share` (`sign` 1) to its day's row or takes it away (`sign` -1); `notes` 0 moves
    /// only the pinned count and the sum.
    private func bump(_ share: Share, by sign: Int, notes: Int = 1) throws {
        try bumpDay.execute(arguments: [share.day, sign * notes, sign * share.pinned, sign * share.cents])
    }

    /// A field's new value as its column stores it: null clears, and so does an empty body.
    private static func column(_ field: String, _ value: ChronicleModel.FieldValue) -> DatabaseValueConvertible? {
        guard let given = text(value), !(field == "body" && given.isEmpty) else { return nil }
        switch field {
        case "cost": return DecimalCents.cents(given)
        case "folderId": return UUID(uuidString: given)
        default: return given
        }
    }

    private static func text(_ value: ChronicleModel.FieldValue?) -> String? {
        if case .text(let text)? = value { text } else { nil }
    }
}

import Foundation
import GRDB

/// A shown note as the GRDB baseline reads it: its columns and its shown labels.
struct GRDBNote: FetchableRecord {
    var id: UUID
    var body: String?
    var day: String
    var costCents: Int?
    var pinned: Bool
    var folderID: UUID?
    var labels: [UUID] = []

    init(row: Row) {
        id = row[0]
        body = row[1]
        day = row[2]
        costCents = row[3]
        pinned = row[4]
        folderID = row[5]
    }
}

/// The notebook's point reads on SQLite, each a cached statement or two in the caller's read
/// transaction, decoded into ``GRDBNote``: a note by id, a folder's notes, a day's notes (each
/// with its shown labels, found by one more query for the whole list) and a day's
/// `notes_per_day` row.
enum GRDBNotebookQueries {
    private static let columns = "n.id, n.body, n.day, n.cost_cents, n.pinned, n.folder_id"

    static func note(_ id: UUID, _ db: Database) throws -> GRDBNote? {
        let statement = try db.cachedStatement(sql: """
            SELECT \(columns) FROM notes n LEFT JOIN folders f ON f.id = n.folder_id
            WHERE n.id = ? AND n.deleted = 0 AND coalesce(f.deleted, 0) = 0
            """)
        guard var note = try GRDBNote.fetchOne(statement, arguments: [id]) else { return nil }
        let labels = try db.cachedStatement(sql: """
            SELECT nl.label_id FROM note_labels nl JOIN labels l ON l.id = nl.label_id
            WHERE nl.note_id = ? AND l.deleted = 0 ORDER BY nl.label_id
            """)
        note.labels = try UUID.fetchAll(labels, arguments: [id])
        return note
    }

    /// The shown notes of folder `id` (none while it is deleted), by id.
    static func notes(inFolder id: UUID, _ db: Database) throws -> [GRDBNote] {
        try notes(joining: "JOIN folders f ON f.id = n.folder_id", where: "n.folder_id = ? AND f.deleted = 0", id, db)
    }

    /// The shown notes of `day`, by id.
    static func notes(on day: String, _ db: Database) throws -> [GRDBNote] {
        try notes(joining: "LEFT JOIN folders f ON f.id = n.folder_id", where: "n.day = ? AND coalesce(f.deleted, 0) = 0", day, db)
    }

    /// `(notes, pinned, spent cents)` of `day`; nil when no shown note has it.
    static func notesPerDay(_ day: String, _ db: Database) throws -> (notes: Int, pinned: Int, cents: Int)? {
        let statement = try db.cachedStatement(sql: "SELECT notes, pinned, spent_cents FROM notes_per_day WHERE day = ? AND notes > 0")
        return try Row.fetchOne(statement, arguments: [day]).map { (notes: $0[0] as Int, pinned: $0[1] as Int, cents: $0[2] as Int) }
    }

    /// The live notes with their folder joined as `join` says, that meet `condition` (with one
    /// argument), by id, each with its shown labels.
    private static func notes(joining join: String, where condition: String, _ argument: some DatabaseValueConvertible,
                              _ db: Database) throws -> [GRDBNote] {
        let statement = try db.cachedStatement(sql: "SELECT \(columns) FROM notes n \(join) WHERE \(condition) AND n.deleted = 0 ORDER BY n.id")
        var notes = try GRDBNote.fetchAll(statement, arguments: [argument])
        guard !notes.isEmpty else { return notes }
        let labels = try db.cachedStatement(sql: """
            SELECT nl.note_id, nl.label_id FROM notes n \(join)
            JOIN note_labels nl ON nl.note_id = n.id JOIN labels l ON l.id = nl.label_id
            WHERE \(condition) AND n.deleted = 0 AND l.deleted = 0 ORDER BY nl.note_id, nl.label_id
            """)
        var byNote: [UUID: [UUID]] = [:]
        let rows = try Row.fetchCursor(labels, arguments: [argument])
        while let row = try rows.next() { byNote[row[0], default: []].append(row[1]) }
        if !byNote.isEmpty {
            for index in notes.indices { notes[index].labels = byNote[notes[index].id] ?? [] }
        }
        return notes
    }
}

import GRDB

/// The notebook on SQLite through GRDB, as its documentation teaches: the same log table as
/// the todo app's baseline (``GRDBStore``), and the notebook's tables, `WITHOUT ROWID` and
/// keyed by UUID, with an index per query.
///
/// - Deletion keeps the row, flagged (`deleted`), since a restoration brings it back as it was.
/// - A note is shown when it is not deleted and its folder, if it has one, is not deleted
///   (`hideWithParent`): the reads join the folder. A note's labels are shown when not deleted.
/// - A unique folder name up to case: a partial unique index of the live folders' names
///   (`COLLATE NOCASE`: ASCII case only, where Chronicle folds Unicode case; the data set's
///   names never collide either way).
/// - Costs are integer cents (exact sums; the data set's costs have two decimals).
/// - `notes_per_day` is kept up per event, as the todo baseline keeps its daily stats: one row
///   per day of the shown notes (a row at 0 notes counts as none).
enum GRDBNotebookSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("log") { db in
            try GRDBStore.createLog(db)
        }
        migrator.registerMigration("notebook") { db in
            try createTables(db)
        }
        return migrator
    }

    static func createTables(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE folders (
                id BLOB PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                deleted INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            CREATE UNIQUE INDEX folders_by_name ON folders (name COLLATE NOCASE) WHERE deleted = 0;
            CREATE TABLE labels (
                id BLOB PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                deleted INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            CREATE TABLE notes (
                id BLOB PRIMARY KEY NOT NULL,
                body TEXT,
                day TEXT NOT NULL,
                cost_cents INTEGER,
                pinned INTEGER NOT NULL DEFAULT 0,
                folder_id BLOB,
                deleted INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            CREATE INDEX notes_by_day ON notes (day, id);
            CREATE INDEX notes_by_folder ON notes (folder_id, id) WHERE folder_id IS NOT NULL;
            CREATE TABLE note_labels (
                note_id BLOB NOT NULL,
                label_id BLOB NOT NULL,
                PRIMARY KEY (note_id, label_id)
            ) WITHOUT ROWID;
            CREATE TABLE notes_per_day (
                day TEXT PRIMARY KEY NOT NULL,
                notes INTEGER NOT NULL,
                pinned INTEGER NOT NULL,
                spent_cents INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE projection_state (
                name TEXT PRIMARY KEY NOT NULL,
                position INTEGER NOT NULL
            );
            """)
    }

    /// Empties the notebook's tables the fast way (outside the timed section of a rebuild).
    static func reset(_ store: GRDBStore) throws {
        try store.pool.write { db in
            try db.execute(sql: """
                DROP TABLE IF EXISTS folders; DROP TABLE IF EXISTS labels; DROP TABLE IF EXISTS notes;
                DROP TABLE IF EXISTS note_labels; DROP TABLE IF EXISTS notes_per_day; DROP TABLE IF EXISTS projection_state;
                """)
            try createTables(db)
        }
        _ = try store.pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    }
}

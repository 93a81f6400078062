/// The measured workloads, named as in the JSON report.
enum Workload: String, Codable, Sendable, CaseIterable {
    case appendBatch = "append-batch"
    case appendSingle1 = "append-single-1"
    case appendSingle8 = "append-single-8"
    case rebuild
    case readTodo = "read-todo"
    case readDayStats = "read-day-stats"
    case readDayTodos = "read-day-todos"
    case syncPush = "sync-push"
    case syncPull = "sync-pull"
    /// The notebook (``NotebookModel``), a second model: its own data set, systems and phase.
    case notesAppendBatch = "notes-append-batch"
    case notesApplyBatch = "notes-apply-batch"
    case notesRebuild = "notes-rebuild"
    case notesReadNote = "notes-read-note"
    case notesReadFolder = "notes-read-folder"
    case notesReadDay = "notes-read-day"
    case notesReadDayStats = "notes-read-day-stats"

    var unit: String {
        switch self {
        case .appendBatch, .appendSingle1, .appendSingle8, .rebuild, .syncPush, .syncPull,
             .notesAppendBatch, .notesApplyBatch, .notesRebuild: "events/s"
        case .readTodo, .readDayStats, .readDayTodos, .notesReadNote, .notesReadFolder, .notesReadDay, .notesReadDayStats: "ops/s"
        }
    }

    /// The notebook's workloads, in the order they run.
    static let notebook: [Workload] = [.notesAppendBatch, .notesApplyBatch, .notesRebuild,
                                       .notesReadNote, .notesReadFolder, .notesReadDay, .notesReadDayStats]

    /// The notebook's reads.
    static let notebookReads: [Workload] = [.notesReadNote, .notesReadFolder, .notesReadDay, .notesReadDayStats]

    /// Whether it measures the notebook (on the notebook's data set), not the todo app.
    var isNotebook: Bool { Self.notebook.contains(self) }

    /// The systems that have something to measure here. Raw LMDB stores events only:
    /// for a rebuild it is a plain cursor scan over the records (the floor of reading the
    /// log), and it has no read models to query nor a sync protocol.
    var systems: [BenchSystem] {
        switch self {
        case .appendBatch, .appendSingle1, .appendSingle8: [.chronicle, .chronicleKeys, .grdb, .lmdbRaw]
        case .rebuild: [.chronicle, .grdb, .lmdbRaw]
        case .readTodo, .readDayStats, .readDayTodos: [.chronicle, .chronicleEntities, .grdb]
        case .syncPush, .syncPull: [.chronicle, .chroniclePostgres, .chroniclePostgres3]
        case .notesAppendBatch, .notesApplyBatch, .notesRebuild, .notesReadNote, .notesReadFolder, .notesReadDay, .notesReadDayStats:
            [.chronicleNotebook, .grdbNotebook]
        }
    }

    /// The group a `--only` name selects.
    static func named(_ name: String) -> [Workload]? {
        switch name {
        case "a", "append-batch": [.appendBatch]
        case "b", "append-single": [.appendSingle1, .appendSingle8]
        case "c", "rebuild": [.rebuild]
        case "d", "reads": [.readTodo, .readDayStats, .readDayTodos]
        case "e", "sync": [.syncPush, .syncPull]
        case "n", "notes": notebook
        case "notes-reads": notebookReads
        default: Workload(rawValue: name).map { [$0] }
        }
    }
}

/// The systems compared.
enum BenchSystem: String, Codable, Sendable, CaseIterable {
    case chronicle
    /// Chronicle with the append keys the store's commands carry (``BenchEvent/appendKeys``):
    /// the cost of decisions that hold across processes, beside `chronicle` in the same runs.
    case chronicleKeys = "chronicle+keys"
    /// Reads only: `chronicle`'s stored entities read generically, as `EntityState`s (what an
    /// app reads without types of its own), where `chronicle` reads them into `Todo`, a
    /// `ChronicleRecord`, as the store's typed reads do.
    case chronicleEntities = "chronicle-entities"
    case grdb
    case lmdbRaw = "lmdb-raw"
    /// Diagnostics only (`--diagnose`, append-batch, not in the JSON): raw LMDB plus
    /// Chronicle's id and stream indexes, to tell the indexes' cost from the rest.
    case lmdbIndexed = "lmdb-raw+indexes"
    /// Sync only: the reference server on PostgreSQL (`serve --database`), one instance.
    case chroniclePostgres = "chronicle-postgres"
    /// Sync only: three server instances on one PostgreSQL database, each with its own
    /// client (a third of the events, split by entity) or device (pulling everything).
    case chroniclePostgres3 = "chronicle-postgres-3"
    /// The notebook only: its declared model's stored entities (`ModelStates` of
    /// ``NotebookModel``) on Chronicle's log, read into ``NoteRecord``.
    case chronicleNotebook = "chronicle-notebook"
    /// The notebook only: GRDB with the notebook's tables (``GRDBNotebookSchema``).
    case grdbNotebook = "grdb-notebook"

    /// How many server instances the system runs (sync), each with one client.
    var serverInstances: Int { self == .chroniclePostgres3 ? 3 : 1 }

    /// Whether its sync server stores in PostgreSQL.
    var onPostgres: Bool { self == .chroniclePostgres || self == .chroniclePostgres3 }

    /// The systems the report compares.
    static let compared: [BenchSystem] = [.chronicle, .grdb, .lmdbRaw]
}

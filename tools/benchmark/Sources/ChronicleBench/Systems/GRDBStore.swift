import Crypto
import ChronicleTodoDomain
import Foundation
import GRDB

/// The baseline a Swift developer would otherwise pick: the same log and the same read
/// models on SQLite through GRDB, written the way GRDB's documentation teaches.
///
/// - One database file in WAL mode (`DatabasePool`), `synchronous = FULL` so that a
///   committed append survives a power cut, as Chronicle's does (one WAL fsync per commit).
/// - The log is one table with the same indexes as Chronicle's: unique event id,
///   unique (stream, version); the position is the rowid. Each event carries the
///   same SHA-256 hash chain, so both systems store the same log.
/// - An append batch is one transaction of cached, prepared statements; an id already
///   stored is skipped (`ON CONFLICT(id) DO NOTHING`) and a stream version already
///   taken fails on the unique index (optimistic concurrency).
/// - The read models are SQL tables (users, todos, daily stats) updated per event
///   by prepared statements; `WITHOUT ROWID` tables keyed by UUID, an index per query.
final class GRDBStore: Sendable {
    let pool: DatabasePool

    /// Opens (creating when missing) the database in folder `path`, durable, with the tables
    /// `migrator` makes: the log and the todo app's models by default.
    init(path: String, migrator: DatabaseMigrator = GRDBStore.migrator) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        pool = try DatabasePool(path: path + "/store.sqlite")
        // DatabasePool switches its writer to WAL with `synchronous = NORMAL` after
        // `prepareDatabase` ran (commits then survive a crash of the app, not of the
        // machine), so durability is set here, on the writer connection, and checked.
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            guard try Int.fetchOne(db, sql: "PRAGMA synchronous") == 2 else {
                throw BenchError.io("SQLite refused synchronous = FULL")
            }
        }
        try migrator.migrate(pool)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("log") { db in
            try createLog(db)
        }
        migrator.registerMigration("models") { db in
            try createModels(db)
        }
        return migrator
    }

    /// The log's table, whichever app's events it holds.
    static func createLog(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE events (
                position INTEGER PRIMARY KEY,
                id BLOB NOT NULL UNIQUE,
                stream TEXT NOT NULL,
                version INTEGER NOT NULL,
                type TEXT NOT NULL,
                timestamp INTEGER NOT NULL,
                origin TEXT NOT NULL,
                data BLOB NOT NULL,
                hash BLOB NOT NULL,
                UNIQUE (stream, version)
            )
            """)
    }

    static func createModels(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE users (
                id BLOB PRIMARY KEY NOT NULL,
                name TEXT NOT NULL,
                age INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX users_by_name ON users (name, id);
            CREATE TABLE todos (
                id BLOB PRIMARY KEY NOT NULL,
                title TEXT NOT NULL,
                deadline TEXT NOT NULL,
                user_id BLOB,
                memo TEXT,
                is_completed INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX todos_by_deadline ON todos (deadline, id);
            CREATE INDEX todos_by_user ON todos (user_id, deadline, id) WHERE user_id IS NOT NULL;
            CREATE TABLE daily_stats (
                day TEXT PRIMARY KEY NOT NULL,
                total INTEGER NOT NULL,
                completed INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE projection_state (
                name TEXT PRIMARY KEY NOT NULL,
                position INTEGER NOT NULL
            );
            """)
    }

    /// Empties the read models the fast way (outside the timed section of a rebuild,
    /// as Chronicle's rebuild gets a fresh models folder).
    func resetModels() throws {
        try pool.write { db in
            try db.execute(sql: """
                DROP TABLE IF EXISTS users; DROP TABLE IF EXISTS todos;
                DROP TABLE IF EXISTS daily_stats; DROP TABLE IF EXISTS projection_state;
                """)
            try Self.createModels(db)
        }
        _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    }

    // MARK: - The log

    /// Appends `events` in the caller's transaction; returns how many were new.
    @discardableResult
    static func append(_ events: some Sequence<BenchEvent>, _ db: Database) throws -> Int {
        var (position, hash) = try head(db)
        let insert = try db.cachedStatement(sql: """
            INSERT INTO events (position, id, stream, version, type, timestamp, origin, data, hash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (id) DO NOTHING
            """)
        var appended = 0
        for event in events {
            let next = position + 1
            let nextHash = ChainHash.hash(previous: hash, position: UInt64(next), event: event)
            insert.setUncheckedArguments([next, event.id, event.stream, Int64(event.version), event.type,
                                          event.timestampMilliseconds, baselineOrigin, event.data, nextHash])
            try insert.execute()
            if db.changesCount > 0 {
                position = next
                hash = nextHash
                appended += 1
            }
        }
        return appended
    }

    /// The last position and its hash.
    static func head(_ db: Database) throws -> (Int64, Data) {
        let statement = try db.cachedStatement(sql: "SELECT position, hash FROM events ORDER BY position DESC LIMIT 1")
        guard let row = try Row.fetchOne(statement) else { return (0, ChainHash.genesis) }
        return (row[0], row[1])
    }
}

/// The hash chain Chronicle keeps, computed the same way for the baseline:
/// SHA-256 over the previous hash, the fixed fields and the variable ones.
enum ChainHash {
    static let genesis = Data(repeating: 0, count: 32)

    static func hash(previous: Data, position: UInt64, event: BenchEvent) -> Data {
        var hasher = SHA256()
        hasher.update(data: previous)
        var fixed: [UInt8] = []
        fixed.reserveCapacity(40)
        fixed.appendBig(position)
        fixed.appendBig(event.version)
        fixed.appendBig(UInt64(bitPattern: event.timestampMilliseconds))
        withUnsafeBytes(of: event.id.uuid) { fixed.append(contentsOf: $0) }
        hasher.update(data: fixed)
        var variable: [UInt8] = []
        variable.reserveCapacity(event.stream.utf8.count + event.type.utf8.count + baselineOrigin.utf8.count + 10)
        variable.appendBig(UInt16(event.stream.utf8.count)); variable.append(contentsOf: event.stream.utf8)
        variable.appendBig(UInt16(event.type.utf8.count)); variable.append(contentsOf: event.type.utf8)
        variable.appendBig(UInt16(baselineOrigin.utf8.count)); variable.append(contentsOf: baselineOrigin.utf8)
        variable.appendBig(UInt32(event.data.count))
        hasher.update(data: variable)
        hasher.update(data: event.data)
        return Data(hasher.finalize())
    }
}

import ChronicleTodoDomain
import Foundation
import GRDB

/// Folds events into the SQL read models, one prepared statement (or two) per event.
struct GRDBProjector {
    private let db: Database
    private let insertUser, updateUser, deleteUser: Statement
    private let insertTodo, todoDay, updateTodo, setCompleted, deleteTodo: Statement
    private let bumpDay, saveCheckpoint: Statement

    init(_ db: Database) throws {
        self.db = db
        insertUser = try db.cachedStatement(sql: "INSERT INTO users (id, name, age) VALUES (?, ?, ?)")
        updateUser = try db.cachedStatement(sql: "UPDATE users SET name = coalesce(?, name), age = coalesce(?, age) WHERE id = ?")
        deleteUser = try db.cachedStatement(sql: "DELETE FROM users WHERE id = ?")
        insertTodo = try db.cachedStatement(sql: """
            INSERT INTO todos (id, title, deadline, user_id, memo, is_completed) VALUES (?, ?, ?, ?, ?, 0)
            """)
        todoDay = try db.cachedStatement(sql: "SELECT deadline, is_completed FROM todos WHERE id = ?")
        updateTodo = try db.cachedStatement(sql: """
            UPDATE todos SET title = coalesce(?, title), deadline = coalesce(?, deadline), memo = coalesce(?, memo)
            WHERE id = ?
            """)
        setCompleted = try db.cachedStatement(sql: """
            UPDATE todos SET is_completed = ? WHERE id = ? AND is_completed <> ? RETURNING deadline
            """)
        deleteTodo = try db.cachedStatement(sql: "DELETE FROM todos WHERE id = ? RETURNING deadline, is_completed")
        bumpDay = try db.cachedStatement(sql: """
            INSERT INTO daily_stats (day, total, completed) VALUES (?, ?, ?)
            ON CONFLICT (day) DO UPDATE SET total = total + excluded.total, completed = completed + excluded.completed
            """)
        saveCheckpoint = try db.cachedStatement(sql: """
            INSERT INTO projection_state (name, position) VALUES ('all', ?)
            ON CONFLICT (name) DO UPDATE SET position = excluded.position
            """)
    }

    /// Replays the whole log into the (empty) models in the caller's transaction; returns the events read.
    func replayLog() throws -> Int {
        let events = try Row.fetchCursor(db, sql: "SELECT position, type, stream, data FROM events ORDER BY position")
        var count = 0
        var last: Int64 = 0
        while let row = try events.next() {
            last = row[0]
            let type: String = row[1], stream: String = row[2]
            let event = try row.withUnsafeData(atIndex: 3) { data in
                try? TodoEvent(type: type, stream: stream, data: data ?? Data())
            }
            if let event { try apply(event) }
            count += 1
        }
        try saveCheckpoint.execute(arguments: [last])
        return count
    }

    func apply(_ event: TodoEvent) throws {
        switch event {
        case .userCreated(let id, let name, let age):
            try insertUser.execute(arguments: [id, name, age])
        case .userUpdated(let id, let name, let age):
            try updateUser.execute(arguments: [name, age, id])
        case .userDeleted(let id):
            try deleteUser.execute(arguments: [id])
        case .todoCreated(let id, let title, let deadline, let userId, let memo):
            let day = deadline.description
            try insertTodo.execute(arguments: [id, title, day, userId, memo])
            try bumpDay.execute(arguments: [day, 1, 0])
        case .todoUpdated(let id, let title, let deadline, let memo):
            if let deadline, let row = try Row.fetchOne(todoDay, arguments: [id]) {
                let old: String = row[0]
                let completed: Int = row[1]
                let new = deadline.description
                if old != new {
                    try bumpDay.execute(arguments: [old, -1, -completed])
                    try bumpDay.execute(arguments: [new, 1, completed])
                }
            }
            try updateTodo.execute(arguments: [title, deadline?.description, memo, id])
        case .todoCompleted(let id):
            if let day = try String.fetchOne(setCompleted, arguments: [1, id, 1]) {
                try bumpDay.execute(arguments: [day, 0, 1])
            }
        case .todoReopened(let id):
            if let day = try String.fetchOne(setCompleted, arguments: [0, id, 0]) {
                try bumpDay.execute(arguments: [day, 0, -1])
            }
        case .todoDeleted(let id):
            if let row = try Row.fetchOne(deleteTodo, arguments: [id]) {
                let completed: Int = row[1]
                try bumpDay.execute(arguments: [row[0] as String, -1, -completed])
            }
        case .other:
            break   // the benchmark's dataset has no tags and no undo (SPEC §2's entities only)
        }
    }
}

// MARK: - Queries

/// The three point reads, each one read transaction of a cached statement, decoded into
/// the domain's values (as Chronicle's queries return them).
enum GRDBQueries {
    static func todo(_ id: UUID, _ db: Database) throws -> Todo? {
        let statement = try db.cachedStatement(sql: """
            SELECT id, title, deadline, user_id, memo, is_completed FROM todos WHERE id = ?
            """)
        return try Todo.fetchOne(statement, arguments: [id])
    }

    static func stats(from: String, to: String, _ db: Database) throws -> [DailyStat] {
        let statement = try db.cachedStatement(sql: """
            SELECT day, total, completed FROM daily_stats WHERE day BETWEEN ? AND ? AND total > 0 ORDER BY day
            """)
        return try DailyStat.fetchAll(statement, arguments: [from, to])
    }

    static func todos(on day: String, _ db: Database) throws -> [Todo] {
        let statement = try db.cachedStatement(sql: """
            SELECT id, title, deadline, user_id, memo, is_completed FROM todos WHERE deadline = ? ORDER BY id
            """)
        return try Todo.fetchAll(statement, arguments: [day])
    }
}

extension Todo: @retroactive FetchableRecord {
    public init(row: Row) throws {
        self.init(id: row[0], title: row[1], deadline: try CalendarDay(parsing: row[2]), userId: row[3],
                  memo: row[4], isCompleted: row[5])
    }
}

extension DailyStat: @retroactive FetchableRecord {
    public init(row: Row) throws {
        self.init(date: try CalendarDay(parsing: row[0]), total: row[1], completed: row[2])
    }
}

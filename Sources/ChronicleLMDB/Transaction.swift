import CLMDB
import CLMDBGuard

/// A read or write transaction, alive only inside an ``Environment/read(_:)`` or
/// ``Environment/write(_:)`` closure.
///
/// Buffers returned by `get` and cursors point into the memory map: copy what you
/// keep before the closure returns.
public struct Transaction {
    let handle: OpaquePointer
    /// `true` inside ``Environment/write(_:)``.
    public let isWritable: Bool
    /// Where the bytes handed back may lie (a damaged file cannot make a read run past it).
    let bounds: MapBounds
    /// For a read transaction, the id of the commit whose snapshot it sees, when that is known
    /// (see ``Environment``, "Monotonic reads"); nil for a write transaction, or a read that may
    /// see a newer snapshot than its id. Two reads with the same id see the same data: what a
    /// reader works out from one may be kept for the next.
    public let snapshotID: UInt64?

    init(handle: OpaquePointer, isWritable: Bool, snapshotID: UInt64? = nil) {
        self.handle = handle
        self.isWritable = isWritable
        self.snapshotID = snapshotID
        bounds = MapBounds(transaction: handle, isWritable: isWritable)
    }

    // MARK: - Databases

    /// Opens a named database in this transaction (it stays open for the environment).
    public func openDatabase(named name: String?, create: Bool = true) throws -> Database {
        var dbi: MDB_dbi = 0
        let flags = create ? UInt32(MDB_CREATE) : 0
        if let name {
            try check(chronicle_mdb_dbi_open(handle, name, flags, &dbi))
        } else {
            try check(chronicle_mdb_dbi_open(handle, nil, flags, &dbi))
        }
        return Database(dbi: dbi, name: name)
    }

    /// Removes every entry of `db` (the handle stays usable).
    public func clear(_ db: Database) throws {
        try check(chronicle_mdb_drop(handle, db.dbi, 0))
    }

    /// Deletes `db` from the environment; its handle must not be used afterwards.
    public func drop(_ db: Database) throws {
        try check(chronicle_mdb_drop(handle, db.dbi, 1))
    }

    /// The number of entries in `db`.
    public func count(_ db: Database) throws -> Int {
        var stat = MDB_stat()
        try check(chronicle_mdb_stat(handle, db.dbi, &stat))
        return stat.ms_entries
    }

    // MARK: - Reads

    /// The value stored under `key`, or `nil`. Valid until the transaction ends.
    public func get(_ db: Database, key: UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer? {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val()
        let code = chronicle_mdb_get(handle, db.dbi, &k, &v)
        if code == MDB_NOTFOUND { return nil }
        try check(code)
        return try bounds.buffer(v)
    }

    /// The value stored under `key`, or `nil`. Valid until the transaction ends.
    public func get(_ db: Database, key: [UInt8]) throws -> UnsafeRawBufferPointer? {
        try key.withUnsafeBytes { (k) in try get(db, key: k) }
    }

    // MARK: - Writes

    /// Stores `value` under `key`.
    public func put(_ db: Database, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer,
                    flags: PutFlags = []) throws {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try check(chronicle_mdb_put(handle, db.dbi, &k, &v, flags.rawValue))
    }

    /// Stores `value` under `key`.
    public func put(_ db: Database, key: [UInt8], value: [UInt8], flags: PutFlags = []) throws {
        try key.withUnsafeBytes { (k) in
            try value.withUnsafeBytes { (v) in try put(db, key: k, value: v, flags: flags) }
        }
    }

    /// Removes `key`; returns `false` when it was not there.
    @discardableResult
    public func delete(_ db: Database, key: [UInt8]) throws -> Bool {
        try key.withUnsafeBytes { (kb) -> Bool in try delete(db, key: kb) }
    }

    /// Removes `key`; returns `false` when it was not there.
    @discardableResult
    public func delete(_ db: Database, key: UnsafeRawBufferPointer) throws -> Bool {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        let code = chronicle_mdb_del(handle, db.dbi, &k, nil)
        if code == MDB_NOTFOUND { return false }
        try check(code)
        return true
    }

    /// Hints that `value`, bytes this transaction handed back, will be read soon: the processor
    /// brings them into its cache meanwhile. A list that looks up many values first and reads
    /// them after asks for the next few while it reads one.
    public func prefetch(_ value: UnsafeRawBufferPointer) {
        guard let address = value.baseAddress else { return }
        chronicle_prefetch(address, value.count)
    }

    // MARK: - Cursors

    /// Runs `body` with a cursor over `db`, closed when `body` returns.
    public func withCursor<T>(_ db: Database, _ body: (inout Cursor) throws -> T) throws -> T {
        let opened = try openCursor(db)
        defer { mdb_cursor_close(opened.handle) }
        var cursor = opened
        return try body(&cursor)
    }

    /// Runs `body` with one cursor over each of `databases`, in their order, all closed when
    /// `body` returns: for a writer that puts into several databases through cursors that
    /// stay where its last put left them.
    public func withCursors<T>(_ databases: [Database], _ body: ([Cursor]) throws -> T) throws -> T {
        var cursors: [Cursor] = []
        cursors.reserveCapacity(databases.count)
        defer { for cursor in cursors { mdb_cursor_close(cursor.handle) } }
        for db in databases { cursors.append(try openCursor(db)) }
        return try body(cursors)
    }

    /// A new cursor over `db`; the caller closes it.
    private func openCursor(_ db: Database) throws -> Cursor {
        var pointer: OpaquePointer?
        try check(chronicle_mdb_cursor_open(handle, db.dbi, &pointer))
        guard let pointer else { throw LMDBError.badTransaction }
        return Cursor(handle: pointer, bounds: bounds)
    }
}

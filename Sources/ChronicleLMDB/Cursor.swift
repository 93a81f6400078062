import CLMDB
import CLMDBGuard

/// One key/value pair seen through a cursor; both point into the map.
public struct Entry {
    /// The key's bytes, valid only inside the transaction's closure.
    public let key: UnsafeRawBufferPointer
    /// The value's bytes, valid only inside the transaction's closure.
    public let value: UnsafeRawBufferPointer
}

/// A position in a database, alive inside ``Transaction/withCursor(_:_:)``.
public struct Cursor {
    let handle: OpaquePointer
    let bounds: MapBounds

    private func move(_ op: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil) throws -> Entry? {
        var k = MDB_val(mv_size: key?.count ?? 0, mv_data: UnsafeMutableRawPointer(mutating: key?.baseAddress))
        var v = MDB_val()
        let code = chronicle_mdb_cursor_get(handle, &k, &v, op)
        if code == MDB_NOTFOUND { return nil }
        try check(code)
        return Entry(key: try bounds.buffer(k), value: try bounds.buffer(v))
    }

    /// The first entry.
    public func first() throws -> Entry? { try move(MDB_FIRST) }
    /// The last entry.
    public func last() throws -> Entry? { try move(MDB_LAST) }
    /// The entry after the current one.
    public func next() throws -> Entry? { try move(MDB_NEXT) }
    /// The entry before the current one.
    public func previous() throws -> Entry? { try move(MDB_PREV) }
    /// The first entry whose key is greater than or equal to `key`.
    public func seek(atLeast key: UnsafeRawBufferPointer) throws -> Entry? { try move(MDB_SET_RANGE, key: key) }
    /// The first entry whose key is greater than or equal to `key`.
    public func seek(atLeast key: [UInt8]) throws -> Entry? {
        try key.withUnsafeBytes { (k) in try move(MDB_SET_RANGE, key: k) }
    }

    /// Stores `value` under `key` through the cursor (write transactions only).
    public func put(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: PutFlags = []) throws {
        var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
        var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
        try check(chronicle_mdb_cursor_put(handle, &k, &v, flags.rawValue))
    }

    /// Deletes the entry the cursor is on.
    public func deleteCurrent() throws {
        try check(chronicle_mdb_cursor_del(handle, 0))
    }
}

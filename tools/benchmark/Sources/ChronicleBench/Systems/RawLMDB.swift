import CLMDB
import Foundation

/// The floor: LMDB through its C API, events only. Key = position (u64 big-endian),
/// value = the event's fields and payload bytes, put with `MDB_APPEND`; no id index,
/// no stream index, no hash chain, no checksum, no validation. Durable like Chronicle
/// (no `MDB_NOSYNC`: LMDB fsyncs at every commit).
///
/// Thread rules: the environment is shared; each write transaction begins and commits
/// on one thread (LMDB serialises writers with its own mutex).
final class RawLMDB: @unchecked Sendable {
    let env: OpaquePointer
    let dbi: MDB_dbi
    /// Diagnostics only: Chronicle's two indexes (id → position, stream ‖ 0 ‖ position → version)
    /// written beside the events, to measure what they cost in pages and fsync time.
    let indexes: (ids: MDB_dbi, streams: MDB_dbi)?

    init(path: String, mapSize: Int = 16 << 30, withIndexes: Bool = false) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var env: OpaquePointer?
        try Self.check(mdb_env_create(&env), "mdb_env_create")
        guard let env else { throw BenchError.io("mdb_env_create returned no environment") }
        try Self.check(mdb_env_set_mapsize(env, mapSize), "mdb_env_set_mapsize")
        try Self.check(mdb_env_set_maxreaders(env, 126), "mdb_env_set_maxreaders")
        try Self.check(mdb_env_set_maxdbs(env, 4), "mdb_env_set_maxdbs")
        try Self.check(mdb_env_open(env, path, UInt32(MDB_NOTLS), 0o644), "mdb_env_open")
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        var dbi: MDB_dbi = 0
        var ids: MDB_dbi = 0, streams: MDB_dbi = 0
        if withIndexes {
            try Self.check(mdb_dbi_open(txn, "events", UInt32(MDB_CREATE), &dbi), "mdb_dbi_open")
            try Self.check(mdb_dbi_open(txn, "ids", UInt32(MDB_CREATE), &ids), "mdb_dbi_open")
            try Self.check(mdb_dbi_open(txn, "streams", UInt32(MDB_CREATE), &streams), "mdb_dbi_open")
        } else {
            try Self.check(mdb_dbi_open(txn, nil, 0, &dbi), "mdb_dbi_open")
        }
        try Self.check(mdb_txn_commit(txn), "mdb_txn_commit")
        self.env = env
        self.dbi = dbi
        self.indexes = withIndexes ? (ids, streams) : nil
    }

    deinit { mdb_env_close(env) }

    static func check(_ code: Int32, _ call: String) throws {
        guard code == MDB_SUCCESS else {
            throw BenchError.io("\(call): \(String(cString: mdb_strerror(code)))")
        }
    }

    /// Appends `events` in one durable write transaction, after the last stored position.
    func append(_ events: ArraySlice<BenchEvent>, buffer: inout [UInt8]) throws {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
        do {
            var position = try lastPosition(txn)
            for event in events {
                position += 1
                Self.encode(event, into: &buffer)
                var key = position.bigEndian
                try withUnsafeMutableBytes(of: &key) { keyBytes in
                    try buffer.withUnsafeMutableBytes { valueBytes in
                        var k = MDB_val(mv_size: 8, mv_data: keyBytes.baseAddress)
                        var v = MDB_val(mv_size: valueBytes.count, mv_data: valueBytes.baseAddress)
                        try Self.check(mdb_put(txn, dbi, &k, &v, UInt32(MDB_APPEND)), "mdb_put")
                    }
                }
                if let indexes { try putIndexes(event, position: position, indexes, txn) }
            }
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        try Self.check(mdb_txn_commit(txn), "mdb_txn_commit")
    }

    /// Reads every record with a cursor, touching its bytes; returns how many.
    func scan() throws -> (count: Int, checksum: UInt64) {
        var txn: OpaquePointer?
        try Self.check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        var cursor: OpaquePointer?
        try Self.check(mdb_cursor_open(txn, dbi, &cursor), "mdb_cursor_open")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val(), value = MDB_val()
        var count = 0
        var checksum: UInt64 = 0
        var code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
        while code == MDB_SUCCESS {
            count += 1
            let bytes = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
            checksum &+= UInt64(bytes.count) &+ UInt64(bytes[0]) &+ UInt64(bytes[bytes.count - 1])
            code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
        }
        if code != MDB_NOTFOUND { try Self.check(code, "mdb_cursor_get") }
        return (count, checksum)
    }

    private func putIndexes(_ event: BenchEvent, position: UInt64, _ indexes: (ids: MDB_dbi, streams: MDB_dbi),
                            _ txn: OpaquePointer?) throws {
        var idKey = event.id.uuid
        var positionValue = position.bigEndian
        try withUnsafeMutableBytes(of: &idKey) { key in
            try withUnsafeMutableBytes(of: &positionValue) { value in
                var k = MDB_val(mv_size: 16, mv_data: key.baseAddress)
                var v = MDB_val(mv_size: 8, mv_data: value.baseAddress)
                try Self.check(mdb_put(txn, indexes.ids, &k, &v, UInt32(MDB_NOOVERWRITE)), "mdb_put ids")
            }
        }
        var streamKey = Array(event.stream.utf8)
        streamKey.append(0)
        streamKey.appendBig(position)
        var version = event.version.bigEndian
        try streamKey.withUnsafeMutableBytes { key in
            try withUnsafeMutableBytes(of: &version) { value in
                var k = MDB_val(mv_size: key.count, mv_data: key.baseAddress)
                var v = MDB_val(mv_size: 8, mv_data: value.baseAddress)
                try Self.check(mdb_put(txn, indexes.streams, &k, &v, 0), "mdb_put streams")
            }
        }
    }

    private func lastPosition(_ txn: OpaquePointer?) throws -> UInt64 {
        var cursor: OpaquePointer?
        try Self.check(mdb_cursor_open(txn, dbi, &cursor), "mdb_cursor_open")
        defer { mdb_cursor_close(cursor) }
        var key = MDB_val(), value = MDB_val()
        let code = mdb_cursor_get(cursor, &key, &value, MDB_LAST)
        if code == MDB_NOTFOUND { return 0 }
        try Self.check(code, "mdb_cursor_get")
        return UInt64(bigEndian: key.mv_data.loadUnaligned(as: UInt64.self))
    }

    /// The event's fields as Chronicle stores them, without hash and checksum:
    /// id ‖ version ‖ timestamp ‖ stream ‖ type ‖ origin ‖ data (lengths prefixed).
    static func encode(_ event: BenchEvent, into buffer: inout [UInt8]) {
        buffer.removeAll(keepingCapacity: true)
        withUnsafeBytes(of: event.id.uuid) { buffer.append(contentsOf: $0) }
        buffer.appendBig(event.version)
        buffer.appendBig(UInt64(bitPattern: event.timestampMilliseconds))
        var stream = event.stream
        stream.withUTF8 { bytes in
            buffer.appendBig(UInt16(bytes.count))
            buffer.append(contentsOf: bytes)
        }
        var type = event.type
        type.withUTF8 { bytes in
            buffer.appendBig(UInt16(bytes.count))
            buffer.append(contentsOf: bytes)
        }
        buffer.appendBig(UInt16(baselineOrigin.utf8.count))
        buffer.append(contentsOf: baselineOrigin.utf8)
        buffer.appendBig(UInt32(event.data.count))
        buffer.append(contentsOf: event.data)
    }
}

import Foundation
import ChronicleLMDB

/// The named databases of a log and the small reads every part needs.
///
/// - `events`: position (u64 BE) → record (see ``RecordCodec``)
/// - `ids`: event id (16 bytes) → position
/// - `streams`: stream ‖ 0x00 ‖ position → stream version, for every event up to the
///   checkpoint `meta[streams-indexed]` and some after it (a merge under way: the events after
///   the checkpoint are read from the log and indexed in memory: ``StreamIndex``)
/// - `touches`: key → u64 BE, the last position of a batch that touched it (``AppendKey``), for
///   the touches up to the checkpoint `meta["touches-indexed"]` (the rest are in `touch-log`:
///   ``TouchIndex``)
/// - `touch-log`: the last position a group commit's touches name (u64 BE) → each touched key with
///   that touch's position, for the group commits after `meta["touches-indexed"]` (``TouchIndex``)
/// - `claims`: key → the UTF-8 name of its owner (``AppendKey/claim(_:by:)``)
/// - `upstream`: position (u64 BE) → the position the sync server gave the event (u64 BE),
///   for each event a pull stored or brought back (``EventLog/upstreamPositions(of:)``)
/// - `notes`: the first position of a local batch (u64 BE) → its last position (u64 BE) ‖ the
///   note its appender gave it (``EventLog/notes(after:)``)
/// - `meta`: `format` → store format byte, `device` → device id, `streams-indexed` → u64,
///   `touches-indexed` → u64,
///   `first-own` → u64, the first position this store's device wrote (0: none yet; absent in a
///   store created before it existed: unknown)
struct LogDatabases: Sendable {
    let events: Database
    let ids: Database
    let streams: Database
    let touches: Database
    let touchLog: Database
    let claims: Database
    let upstream: Database
    let notes: Database
    let meta: Database

    static let formatKey = Array("format".utf8)
    static let deviceKey = Array("device".utf8)
    static let streamsIndexedKey = Array("streams-indexed".utf8)
    static let firstOwnKey = Array("first-own".utf8)
    static let touchesIndexedKey = Array("touches-indexed".utf8)
    /// The format of the store as a whole (`meta["format"]`). 1: `streams` indexes every
    /// event; 2: only those up to `meta["streams-indexed"]`; 3: `touches` and `claims` exist
    /// (a format-2 store is upgraded when it opens: both start empty, which is exact, since
    /// no release before format 3 wrote a key); 4: `upstream` exists (a format-3 store gets it
    /// empty: events it pulled before are ordered by their position here); 5: `notes` exists
    /// (a format-4 store gets it empty: no batch before it has a note); 6: `meta["first-own"]` is
    /// kept by every writer (a format-5 store gets none: unknown, so merges look at its records,
    /// as before; a new store starts it at 0, and an older Chronicle, which would not keep it,
    /// refuses the store); 7: `touch-log` exists and `touches` holds the touches up to
    /// `meta["touches-indexed"]` (a format-6 store gets an empty log and its head as that
    /// checkpoint: its `touches` holds every touch); 8: `streams` may also hold entries past
    /// `meta["streams-indexed"]`, which a merge wrote before it moved the checkpoint (a format-7
    /// store holds none; an older Chronicle, which would count them twice, refuses the store).
    /// Records have their own format byte.
    static let storeFormat: UInt8 = 8

    /// Opens the databases, creating them (and the device id) for a new store.
    static func open(in environment: Environment) throws(EventLogError) -> (LogDatabases, String) {
        do {
            // An existing store is opened without writing anything to it.
            let existing = try? environment.read { txn -> (LogDatabases, String)? in
                let meta = try txn.openDatabase(named: "meta", create: false)
                guard let device = try txn.get(meta, key: deviceKey) else { return nil }
                let format = try txn.get(meta, key: formatKey)?.first ?? 0
                guard format <= storeFormat else {
                    throw EventLogError.newerFormat(found: format, supported: storeFormat)
                }
                guard format == storeFormat else { return nil }   // upgraded below
                return (try open(txn, meta: meta, create: false), String(decoding: device, as: UTF8.self))
            }
            if let existing = existing.flatMap({ $0 }) { return existing }
            return try environment.write { txn in
                let databases = try open(txn, meta: try txn.openDatabase(named: "meta"), create: true)
                let format = try txn.get(databases.meta, key: formatKey)?.first
                if let format, format > storeFormat {
                    throw EventLogError.newerFormat(found: format, supported: storeFormat)
                }
                if format == nil {
                    try databases.startStreamCheckpoints(at: 0, txn)
                    try txn.put(databases.meta, key: firstOwnKey, value: Keys.position(0))
                    try txn.put(databases.meta, key: touchesIndexedKey, value: Keys.position(0))
                } else if format != storeFormat {
                    if try txn.get(databases.meta, key: touchesIndexedKey) == nil {
                        try txn.put(databases.meta, key: touchesIndexedKey, value: Keys.position(try databases.headPosition(txn)))
                    }
                    // Format 1 keeps its missing checkpoint: the first append records it (StreamIndex).
                    try txn.put(databases.meta, key: formatKey, value: [storeFormat])
                }
                if let device = try txn.get(databases.meta, key: deviceKey) {
                    return (databases, String(decoding: device, as: UTF8.self))
                }
                let device = UUID().uuidString.lowercased()
                try txn.put(databases.meta, key: deviceKey, value: Array(device.utf8))
                return (databases, device)
            }
        } catch let error as EventLogError {
            throw error
        } catch let error as LMDBError {
            throw .cannotOpen(path: environment.path, reason: error.description)
        } catch {
            throw .cannotOpen(path: environment.path, reason: "\(error)")
        }
    }

    private static func open(_ txn: Transaction, meta: Database, create: Bool) throws -> LogDatabases {
        LogDatabases(events: try txn.openDatabase(named: "events", create: create),
                     ids: try txn.openDatabase(named: "ids", create: create),
                     streams: try txn.openDatabase(named: "streams", create: create),
                     touches: try txn.openDatabase(named: "touches", create: create),
                     touchLog: try txn.openDatabase(named: "touch-log", create: create),
                     claims: try txn.openDatabase(named: "claims", create: create),
                     upstream: try txn.openDatabase(named: "upstream", create: create),
                     notes: try txn.openDatabase(named: "notes", create: create),
                     meta: meta)
    }

    /// The last position in the log.
    func headPosition(_ txn: Transaction) throws -> UInt64 {
        try txn.withCursor(events) { cursor in
            try cursor.last().map { try $0.key.storedBigEndian(UInt64.self, "the last events key") } ?? 0
        }
    }

    /// The last record's position and hash (genesis for an empty log).
    func headLink(_ txn: Transaction) throws -> (position: UInt64, hash: ChainHash) {
        try txn.withCursor(events) { cursor in
            guard let last = try cursor.last() else { return (0, .genesis) }
            let position = try last.key.storedBigEndian(UInt64.self, "the last events key")
            guard let hash = RecordCodec.storedHash(last.value) else {
                throw EventLogError.corruptRecord(position: position, reason: "record is truncated")
            }
            return (position, hash)
        }
    }

    /// Marks the store as format 2, its stream index complete through `position`: a new
    /// store at 0, a format-1 store (whose index holds every event) at its head.
    func startStreamCheckpoints(at position: UInt64, _ txn: Transaction) throws {
        try txn.put(meta, key: Self.streamsIndexedKey, value: Keys.position(position))
        try txn.put(meta, key: Self.formatKey, value: [Self.storeFormat])
    }

    /// The position through which `streams` indexes every event. A store of format 1 has
    /// no checkpoint: its index holds every event.
    func streamsIndexedThrough(_ txn: Transaction) throws -> UInt64 {
        try metaPosition(Self.streamsIndexedKey, txn) ?? headPosition(txn)
    }

    /// The position through which `touches` holds every touch (``TouchIndex``).
    func touchesIndexedThrough(_ txn: Transaction) throws -> UInt64 {
        guard let position = try metaPosition(Self.touchesIndexedKey, txn) else {
            throw EventLogError.corruptRecord(position: 0, reason: "meta touches-indexed is missing")
        }
        return position
    }

    /// The first position this store's device wrote: 0 when it wrote none yet, nil when the
    /// store predates the record of it (`meta["first-own"]`, kept by the writer).
    func firstOwnPosition(_ txn: Transaction) throws -> UInt64? {
        try metaPosition(Self.firstOwnKey, txn)
    }

    /// The position stored in `meta` under `key` (nil when absent), which must be 8 bytes.
    private func metaPosition(_ key: [UInt8], _ txn: Transaction) throws -> UInt64? {
        guard let value = try txn.get(meta, key: key) else { return nil }
        guard value.count == 8 else {
            let name = String(decoding: key, as: UTF8.self)
            throw EventLogError.corruptRecord(position: 0, reason: "meta \(name) holds \(value.count) bytes, not 8")
        }
        return value.readBigEndian(UInt64.self, at: 0)
    }

    /// The last version of `stream` in the `streams` database (0 when absent), found through
    /// `cursor` (over `streams`): the entry before the first key past the stream's, `stream ‖ 0x01`.
    static func indexedVersion(_ stream: String, _ cursor: Cursor) throws -> UInt64 {
        var stream = stream
        return try stream.withUTF8 { name in
            try withUnsafeTemporaryAllocation(byteCount: name.count + 1, alignment: 1) { after in
                after.copyMemory(from: UnsafeRawBufferPointer(name))
                after[name.count] = 1
                let entry = try cursor.seek(atLeast: UnsafeRawBufferPointer(after)) != nil ? try cursor.previous() : try cursor.last()
                guard let entry, entry.key.count > name.count, entry.key[name.count] == 0,
                      name.isEmpty || memcmp(entry.key.baseAddress!, name.baseAddress!, name.count) == 0 else { return 0 }
                return try entry.value.storedBigEndian(UInt64.self, "a streams value")
            }
        }
    }

    /// Decodes a record read under `entry.key`, mapping damage to a positioned error.
    func decode(_ entry: Entry) throws -> RecordedEvent {
        try view(entry).recorded()
    }

    /// Whether the record stored at `position` was written by `origin` (compared as bytes),
    /// checked as ``decode(_:position:)`` checks a record, without decoding it.
    func hasOrigin(_ value: UnsafeRawBufferPointer, position: UInt64, _ origin: String) throws -> Bool {
        try read(at: position) { () throws(RecordError) in try RecordCodec.position(value, ifOrigin: origin) }
    }

    /// Decodes the record stored at `position`.
    ///
    /// The checksum is checked on every read (a CRC over a few hundred bytes, small beside
    /// the copy into a `RecordedEvent`), so a damaged record is an error, never a wrong event.
    func decode(_ value: UnsafeRawBufferPointer, position: UInt64) throws -> RecordedEvent {
        try view(value, position: position).recorded()
    }

    /// Reads the record stored at `position` in place, checked as ``decode(_:position:)`` checks it.
    func view(_ value: UnsafeRawBufferPointer, position: UInt64) throws -> RecordView {
        try read(at: position) { () throws(RecordError) in
            let view = try RecordCodec.view(value, verifyChecksum: true)
            return (view.position, view)
        }
    }

    /// Reads the record of an entry of `events` in place.
    func view(_ entry: Entry) throws -> RecordView {
        try view(entry.value, position: entry.key.count == 8 ? entry.key.readBigEndian(UInt64.self, at: 0) : 0)
    }

    /// Runs `read` on the record stored at `position`: a newer record format is
    /// ``EventLogError/newerFormat(found:supported:)``; damage, or a record that says another
    /// position, is ``EventLogError/corruptRecord(position:reason:)`` naming `position`.
    private func read<T>(at position: UInt64,
                         _ read: () throws(RecordError) -> (position: UInt64, T)) throws -> T {
        let stored: (position: UInt64, T)
        do {
            stored = try read()
        } catch .unsupportedFormat(let format) {
            throw EventLogError.newerFormat(found: format, supported: RecordCodec.currentFormat)
        } catch {
            throw EventLogError.corruptRecord(position: position, reason: error.description)
        }
        guard stored.position == position else {
            throw EventLogError.corruptRecord(position: position, reason: "the record says position \(stored.position)")
        }
        return stored.1
    }
}

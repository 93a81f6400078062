import Foundation
import ChronicleLMDB

/// The cursors a group commit writes the log through, open for its whole transaction.
///
/// Each cursor stays where its last operation left it. Records are appended in position order
/// and new ids (UUIDv7) mostly in time order, so a put at the end of `events` or `ids` needs
/// no search from the root. An id beyond the largest stored one cannot be stored, so it needs
/// no lookup either: only an id at or below it (an old event pulled again, a retried batch)
/// is looked up and put in its place, through the transaction, so that the appending cursor
/// is never moved away from the end.
///
/// Thread rules: alive only inside the writer's transaction, on its thread.
struct WriteCursors {
    private let txn: Transaction
    private let idsDatabase: Database
    private let events: Cursor
    private let ids: Cursor
    /// Over `streams`: the versions of streams the in-memory tail does not hold.
    let streams: Cursor
    /// The largest id in `ids`, as its two big-endian halves (nil: none stored).
    private var lastID: (UInt64, UInt64)?

    /// Opens the cursors in `txn`, runs `body` with them, and closes them.
    static func with<T>(_ databases: LogDatabases, _ txn: Transaction,
                        _ body: (WriteCursors) throws -> T) throws -> T {
        try txn.withCursors([databases.events, databases.ids, databases.streams]) { cursors in
            let last = try cursors[1].last()
            if let last, last.key.count != 16 {
                throw EventLogError.corruptRecord(position: 0, reason: "an ids key holds \(last.key.count) bytes, not 16")
            }
            return try body(WriteCursors(txn: txn, idsDatabase: databases.ids, events: cursors[0], ids: cursors[1],
                                         streams: cursors[2], lastID: last.map { Self.halves($0.key) }))
        }
    }

    private init(txn: Transaction, idsDatabase: Database, events: Cursor, ids: Cursor, streams: Cursor,
                 lastID: (UInt64, UInt64)?) {
        self.txn = txn
        self.idsDatabase = idsDatabase
        self.events = events
        self.ids = ids
        self.streams = streams
        self.lastID = lastID
    }

    /// The position stored under `id`, or nil when the log does not hold it.
    func storedPosition(of id: UUID) throws -> UInt64? {
        guard !isBeyondStored(id) else { return nil }
        return try withUnsafeBytes(of: id.uuid) { key in
            try txn.get(idsDatabase, key: key).map { try $0.storedBigEndian(UInt64.self, "an ids value") }
        }
    }

    /// Stores the record at `position` (after every stored one) and indexes its `id`, which the
    /// log must not hold yet.
    mutating func put(record: UnsafeRawBufferPointer, position: UInt64, id: UUID) throws {
        try withUnsafeBytes(of: position.bigEndian) { positionKey in
            try events.put(key: positionKey, value: record, flags: .append)
            try withUnsafeBytes(of: id.uuid) { idKey in
                if isBeyondStored(id) {
                    try ids.put(key: idKey, value: positionKey, flags: .append)
                    lastID = Self.halves(idKey)
                } else {
                    try txn.put(idsDatabase, key: idKey, value: positionKey, flags: .noOverwrite)
                }
            }
        }
    }

    private func isBeyondStored(_ id: UUID) -> Bool {
        guard let lastID else { return true }
        return withUnsafeBytes(of: id.uuid) { Self.halves($0) } > lastID
    }

    /// An id key's 16 bytes as two big-endian integers, which compare as the bytes do.
    private static func halves(_ key: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        (key.readBigEndian(UInt64.self, at: 0), key.readBigEndian(UInt64.self, at: 8))
    }
}

import Foundation
import LMDB
import Synchronization

/// Where each stream's events are: for expected-version checks and stream reads.
///
/// One `streams` entry written per event in every commit dirtied a page at a random place
/// in the file per event (streams interleave), which made the index, not the events, the
/// cost of an append. So the `streams` database holds the events up to a checkpoint
/// (`meta["streams-indexed"]`), and the events after it are indexed in memory by a
/// ``StreamTail`` built from the records themselves (each carries its stream and version).
/// The writer moves the checkpoint, writing the tail into `streams`, once
/// `checkpointEvents` events follow it: each index page is then written once per checkpoint
/// instead of once per commit.
///
/// Nothing here can be lost or go stale. The tail is derived from committed events only,
/// and is brought up to the snapshot of whichever transaction asks, which also picks up other
/// processes' appends and checkpoints; a crash loses nothing but memory. The checkpoint and
/// its entries are written in one transaction.
///
/// Thread rules: `cache` is guarded by its mutex; a transaction passed in is used only
/// during the call, on the caller's thread.
final class StreamIndex: Sendable {
    /// What a transaction sees: the checkpoint and the head of the log.
    struct Snapshot: Sendable {
        let checkpoint: UInt64
        let head: UInt64
    }

    let databases: LogDatabases
    /// How many events may follow the checkpoint before the writer moves it.
    let checkpointEvents: Int
    private let cache = Mutex(StreamTail())

    init(databases: LogDatabases, checkpointEvents: Int) {
        self.databases = databases
        self.checkpointEvents = max(1, checkpointEvents)
    }

    /// The checkpoint and head `txn` sees.
    func snapshot(_ txn: Transaction) throws -> Snapshot {
        Snapshot(checkpoint: try databases.streamsIndexedThrough(txn), head: try databases.headPosition(txn))
    }

    // MARK: - Reads

    /// The last version of `stream` in `snapshot` (0 when it does not exist); `streams` is a
    /// cursor over the `streams` database in `txn`.
    func version(of stream: StreamName, in snapshot: Snapshot, _ txn: Transaction, streams: Cursor) throws -> UInt64 {
        if let version = try withTail(snapshot, txn, { tail in tail.version(of: stream, through: snapshot.head) }) {
            return version
        }
        return try LogDatabases.indexedVersion(stream.text, streams)
    }

    /// The positions of `stream`'s events with a version above `version`, in order, up to `limit`.
    func positions(of stream: String, afterVersion version: UInt64, limit: Int, _ txn: Transaction) throws -> [UInt64] {
        let snapshot = try snapshot(txn)
        var positions: [UInt64] = []
        let prefix = Keys.streamPrefix(stream)
        try txn.withCursor(databases.streams) { cursor in
            var entry = try cursor.seek(atLeast: prefix)
            while let current = entry, positions.count < limit, current.key.starts(with: prefix) {
                if current.value.readBigEndian(UInt64.self, at: 0) > version {
                    positions.append(current.key.readBigEndian(UInt64.self, at: prefix.count))
                }
                entry = try cursor.next()
            }
        }
        guard positions.count < limit else { return positions }
        let tail = try withTail(snapshot, txn) { tail in
            tail.entries(of: stream, through: snapshot.head).filter { $0.version > version }.map(\.position)
        }
        return positions + tail.prefix(limit - positions.count)
    }

    // MARK: - The writer

    /// Called by the writer at the start of its write transaction: upgrades a store of format 1
    /// (whose index holds every event) by recording its head as the checkpoint, and returns
    /// the snapshot the transaction starts from.
    func beginWrite(_ txn: Transaction) throws -> Snapshot {
        if try txn.get(databases.meta, key: LogDatabases.streamsIndexedKey) == nil {
            try databases.startStreamCheckpoints(at: try databases.headPosition(txn), txn)
        }
        return try snapshot(txn)
    }

    /// Whether the writer should move the checkpoint past `pending` (the entries of the events
    /// its transaction wrote, which follow `snapshot.head`).
    func shouldCheckpoint(_ pending: StreamTail, after snapshot: Snapshot) -> Bool {
        pending.covered - snapshot.checkpoint >= UInt64(checkpointEvents)
    }

    /// Writes the entries of every event after the checkpoint, `pending` included, into
    /// `streams`, and moves the checkpoint to the last of them. In the writer's transaction.
    func checkpoint(_ pending: StreamTail, after snapshot: Snapshot, _ txn: Transaction) throws {
        var entries = try withTail(snapshot, txn) { tail in tail }
        entries.append(pending)
        var key = [UInt8](), value = [UInt8]()
        // Streams in key order, through one cursor: neighbouring puts land on the page the
        // cursor stands on, which LMDB searches alone.
        try txn.withCursor(databases.streams) { cursor in
            try entries.forEachStream(inOrderOf: Keys.streamPrefix, through: entries.covered) { prefix, streamEntries in
                for entry in streamEntries {
                    key.removeAll(keepingCapacity: true)
                    key += prefix
                    key.appendBigEndian(entry.position)
                    value.removeAll(keepingCapacity: true)
                    value.appendBigEndian(entry.version)
                    try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try cursor.put(key: k, value: v) } }
                }
            }
        }
        try txn.put(databases.meta, key: LogDatabases.streamsIndexedKey, value: Keys.position(pending.covered))
    }

    /// How many events after the checkpoint make a closing writer move it (``checkpointAtClose(_:)``).
    static let closingCheckpointEvents: UInt64 = 1_000

    /// In a writer's last transaction, as its log closes: moves the checkpoint to the head when
    /// at least ``closingCheckpointEvents`` events follow it, so that the next process to open the
    /// log finds them indexed instead of reading them all again (up to `checkpointEvents` records
    /// for its first append or stream read). Returns whether it moved.
    func checkpointAtClose(_ txn: Transaction) throws -> Bool {
        let snapshot = try beginWrite(txn)
        guard snapshot.head - snapshot.checkpoint >= Self.closingCheckpointEvents else { return false }
        try checkpoint(StreamTail(base: snapshot.head), after: snapshot, txn)
        return true
    }

    /// Called by the writer once its transaction committed: hands over the entries it wrote,
    /// so the tail need not read them back from the log. `checkpointed`: whether the
    /// transaction moved the checkpoint past them.
    func committed(_ written: StreamTail, checkpointed: Bool) {
        cache.withLock { tail in
            if checkpointed {
                tail = StreamTail(base: written.covered, expected: min(checkpointEvents, 1 << 16))
            } else if tail.covered == written.base {
                tail.append(written)
            }
        }
    }

    // MARK: - The tail

    /// Runs `body` on the tail of `snapshot`: the cached one, first brought up to the snapshot's
    /// checkpoint and head, or, for a snapshot older than the cache's checkpoint, one of its own.
    private func withTail<T: Sendable>(_ snapshot: Snapshot, _ txn: Transaction,
                                       _ body: (StreamTail) -> T) throws -> T {
        try cache.withLock { tail throws -> T in
            if snapshot.checkpoint < tail.base {
                var own = StreamTail(base: snapshot.checkpoint)
                try extend(&own, to: snapshot.head, txn)
                return body(own)
            }
            if snapshot.checkpoint > tail.covered {
                tail = StreamTail(base: snapshot.checkpoint)
            } else {
                tail.advanceBase(to: snapshot.checkpoint)
            }
            if tail.covered < snapshot.head { try extend(&tail, to: snapshot.head, txn) }
            return body(tail)
        }
    }

    /// Adds the events in `(tail.covered, head]`, read from the log.
    private func extend(_ tail: inout StreamTail, to head: UInt64, _ txn: Transaction) throws {
        try txn.withCursor(databases.events) { cursor in
            var entry = try cursor.seek(atLeast: Keys.position(tail.covered + 1))
            while let current = entry, tail.covered < head {
                let expected = tail.covered + 1
                guard current.key.count == 8, current.key.readBigEndian(UInt64.self, at: 0) == expected else {
                    throw EventLogError.corruptRecord(position: expected, reason: "position \(expected) is missing")
                }
                let (stream, version): (String, UInt64)
                do {
                    (stream, version) = try RecordCodec.streamAndVersion(current.value)
                } catch {
                    throw EventLogError.corruptRecord(position: expected, reason: "\(error)")
                }
                tail.add(stream: StreamName(stream), position: expected, version: version)
                entry = try cursor.next()
            }
        }
        guard tail.covered >= head else {
            throw EventLogError.corruptRecord(position: tail.covered + 1, reason: "position \(tail.covered + 1) is missing")
        }
    }
}

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
/// Nothing here can be lost or go stale. The tail is derived from the events themselves, and
/// is brought up to the snapshot of whichever transaction asks, which also picks up other
/// processes' appends and checkpoints; a crash loses nothing but memory. The checkpoint and
/// its entries are written in one transaction.
///
/// The writer adds its events to the cached tail as it writes them, before they commit, so
/// that its own lookups see them and no second table is merged in after the commit. The
/// first such position is kept as `pendingFrom` until the writer reports the outcome. A reader
/// never sees those entries before they commit: its snapshot's head is below them. One whose
/// head reaches `pendingFrom` knows the writer's transaction has ended (LMDB lets one write
/// transaction run at a time, across processes) without knowing how, so it drops them and reads
/// those positions from the log.
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
    private let cache = Mutex(Cached())

    /// The tail, and where the writer's uncommitted entries in it begin (nil: none).
    private struct Cached {
        var tail = StreamTail()
        var pendingFrom: UInt64?

        /// Drops the writer's uncommitted entries, if any (the whole tail, to be read again from
        /// the log, should it no longer reach back to them).
        mutating func dropPending() {
            guard let pendingFrom else { return }
            self.pendingFrom = nil
            let kept = pendingFrom - 1
            guard kept < tail.covered else { return }
            if kept >= tail.base {
                tail.truncate(to: kept)
            } else {
                tail = StreamTail(base: tail.base)
            }
        }
    }

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
    /// cursor over the `streams` database in `txn`. The writer passes `ownWrites` and a snapshot
    /// whose head is its last write, to count the events its transaction wrote so far.
    func version(of stream: StreamName, in snapshot: Snapshot, _ txn: Transaction, streams: Cursor,
                 ownWrites: Bool = false) throws -> UInt64 {
        if let version = try withTail(snapshot, txn, ownWrites: ownWrites, { tail in tail.version(of: stream, through: snapshot.head) }) {
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
    /// (whose index holds every event) by recording its head as the checkpoint, drops what an
    /// earlier transaction of this writer added without committing, brings the tail up to the
    /// transaction's snapshot (so the writer's events follow it), and returns that snapshot.
    func beginWrite(_ txn: Transaction) throws -> Snapshot {
        if try txn.get(databases.meta, key: LogDatabases.streamsIndexedKey) == nil {
            try databases.startStreamCheckpoints(at: try databases.headPosition(txn), txn)
        }
        let snapshot = try snapshot(txn)
        cache.withLock { $0.dropPending() }
        try withTail(snapshot, txn) { _ in }
        return snapshot
    }

    /// Adds an event the writer's transaction wrote, at the tail's next position.
    func add(stream: StreamName, position: UInt64, version: UInt64) {
        cache.withLock { cached in
            if cached.pendingFrom == nil { cached.pendingFrom = position }
            cached.tail.add(stream: stream, position: position, version: version)
        }
    }

    /// Whether the writer, whose transaction has written up to `head`, should move the checkpoint.
    func shouldCheckpoint(head: UInt64, after snapshot: Snapshot) -> Bool {
        head - snapshot.checkpoint >= UInt64(checkpointEvents)
    }

    /// Writes the entries of every event after the checkpoint through `head` (the writer's
    /// last write; the tail covers it) into `streams`, and moves the checkpoint to `head`. In the
    /// writer's transaction.
    func checkpoint(through head: UInt64, _ txn: Transaction) throws {
        // The tail as it stands (a reference to its storage, not a copy: nothing changes it while
        // the writer's transaction runs), so that readers are not held up while it is written.
        let entries = cache.withLock { $0.tail }
        precondition(entries.covered == head, "the stream tail must cover the writer's transaction")
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
        try txn.put(databases.meta, key: LogDatabases.streamsIndexedKey, value: Keys.position(head))
    }

    /// How many events after the checkpoint make a closing writer move it (``checkpointAtClose(_:)``).
    static let closingCheckpointEvents: UInt64 = 1_000

    /// In a writer's last transaction, as its log closes: moves the checkpoint to the head when
    /// at least ``closingCheckpointEvents`` events follow it, so that the next process to open the
    /// log finds them indexed instead of reading them all again (up to `checkpointEvents` records
    /// for its first append or stream read). Returns the position it moved to, if it moved.
    func checkpointAtClose(_ txn: Transaction) throws -> UInt64? {
        let snapshot = try beginWrite(txn)
        guard snapshot.head - snapshot.checkpoint >= Self.closingCheckpointEvents else { return nil }
        try checkpoint(through: snapshot.head, txn)
        return snapshot.head
    }

    /// Called by the writer once its transaction committed, through `head`: its entries in the
    /// tail are committed ones now. `checkpointed`: whether the transaction moved the checkpoint
    /// to `head` (the tail then starts afresh there).
    func committed(through head: UInt64, checkpointed: Bool) {
        cache.withLock { cached in
            cached.pendingFrom = nil
            if checkpointed, cached.tail.base < head {
                cached.tail = StreamTail(base: head, expected: min(checkpointEvents, 1 << 16))
            }
        }
    }

    /// Called by the writer when its transaction did not commit: drops the entries it added.
    func discardWrites() {
        cache.withLock { $0.dropPending() }
    }

    // MARK: - The tail

    /// Runs `body` on the tail of `snapshot`: the cached one, first brought up to the snapshot's
    /// checkpoint and head, or, for a snapshot older than the cache's checkpoint, one of its own.
    /// Only the writer (`ownWrites`) is shown entries its transaction has not committed.
    private func withTail<T: Sendable>(_ snapshot: Snapshot, _ txn: Transaction, ownWrites: Bool = false,
                                       _ body: (StreamTail) -> T) throws -> T {
        try cache.withLock { cached throws -> T in
            if !ownWrites, let pendingFrom = cached.pendingFrom, snapshot.head >= pendingFrom {
                cached.dropPending()   // the writer's transaction ended; the log says how
            }
            if snapshot.checkpoint < cached.tail.base {
                var own = StreamTail(base: snapshot.checkpoint)
                try extend(&own, to: snapshot.head, txn)
                return body(own)
            }
            if snapshot.checkpoint > cached.tail.covered {
                cached.tail = StreamTail(base: snapshot.checkpoint)
            } else {
                cached.tail.advanceBase(to: snapshot.checkpoint)
            }
            if cached.tail.covered < snapshot.head { try extend(&cached.tail, to: snapshot.head, txn) }
            return body(cached.tail)
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

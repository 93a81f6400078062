import Foundation
import ChronicleLMDB
import Synchronization

/// Where each stream's events are: for expected-version checks and stream reads.
///
/// One `streams` entry written per event in every commit dirtied a page at a random place
/// in the file per event (streams interleave), which made the index, not the events, the
/// cost of an append. So the `streams` database holds every event up to a checkpoint
/// (`meta["streams-indexed"]`), and the events after it are indexed in memory by a
/// ``StreamTail`` built from the records themselves (each carries its stream and version).
/// Once `checkpointEvents` events follow the checkpoint, the writer merges them into `streams`
/// (a ``StreamMerge``): a slice of the streams, in key order, per write transaction, the last of
/// which moves the checkpoint. Each index page is then written about once per merge instead of
/// once per commit, and no transaction holds more than a slice's pages.
///
/// So `streams` may also hold entries past the checkpoint (store format 8): those of a merge's
/// slices written so far, or of one its process did not finish. They are exact, and the tail
/// has them too; reads take every event past the checkpoint from the tail.
///
/// Nothing here can be lost or go stale. The tail is derived from the events themselves, and
/// is brought up to the snapshot of whichever transaction asks, which also picks up other
/// processes' appends and checkpoints; a crash loses nothing but memory (a merge cut short is
/// planned again, and writing an entry twice writes the same bytes). The checkpoint moves in the
/// transaction that writes a merge's last slice.
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
/// during the call, on the caller's thread. The merge is the writer's alone.
final class StreamIndex: Sendable {
    /// What a transaction sees: the checkpoint and the head of the log.
    struct Snapshot: Sendable {
        let checkpoint: UInt64
        let head: UInt64
    }

    let databases: LogDatabases
    /// How many events may follow the checkpoint before the writer merges them into `streams`.
    let checkpointEvents: Int
    private let cache = Mutex(Cached())

    /// The tail, where the writer's uncommitted entries in it begin (nil: none), and the
    /// writer's merge under way (nil: none).
    private struct Cached {
        var tail = StreamTail()
        var pendingFrom: UInt64?
        var merge: StreamMerge?

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
                let position = try current.key.storedBigEndian(UInt64.self, at: prefix.count, "a streams key")
                guard position <= snapshot.checkpoint else { break }   // a merge's slice wrote it; the tail has it
                if try current.value.storedBigEndian(UInt64.self, "a streams value") > version { positions.append(position) }
                entry = try cursor.next()
            }
        }
        guard positions.count < limit else { return positions }
        let tail = try withTail(snapshot, txn) { tail in
            tail.entries(of: stream, through: snapshot.head).filter { $0.version > version }.map(\.position)
        }
        return positions + tail.prefix(limit - positions.count)
    }

    /// How many `streams` entries are of positions up to `checkpoint` (for `verify`, which
    /// expects one per event; a merge may have written some after it).
    static func entries(through checkpoint: UInt64, _ databases: LogDatabases, _ txn: Transaction) throws -> Int {
        try txn.withCursor(databases.streams) { cursor in
            var count = 0
            var entry = try cursor.first()
            while let current = entry {
                // (A key too short to end in a position is counted, so that the count is off.)
                if current.key.count < 9 || current.key.readBigEndian(UInt64.self, at: current.key.count - 8) <= checkpoint { count += 1 }
                entry = try cursor.next()
            }
            return count
        }
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

    /// How many slices a merge of `checkpointEvents` events is written in.
    static let mergeSlices = 16

    /// About how many entries one transaction of a merge writes.
    var sliceEntries: Int { (checkpointEvents + Self.mergeSlices - 1) / Self.mergeSlices }

    /// How many events after the checkpoint make a closing writer merge them (see ``advanceMerge(head:after:closing:_:)``).
    static let closingCheckpointEvents: UInt64 = 1_000

    /// What a write transaction did to the merge, for ``committed(_:)``.
    struct MergeStep: Sendable {
        /// The merge still under way after the transaction (nil: it completed, or was dropped).
        let merge: StreamMerge?
        /// Whether the transaction planned the merge (through its head).
        let started: Bool
    }

    /// In the writer's transaction, after its events (through `head`, which the tail covers):
    /// writes the next slice of the merge under way, or, when there is none and at least
    /// `checkpointEvents` events follow the checkpoint, plans one through `head` and writes its
    /// first slice. The transaction that writes the last slice moves the checkpoint to the merge's
    /// target. A merge whose target another process's checkpoint reached is dropped. Nil when
    /// there is nothing to do.
    ///
    /// `closing`: the writer's last transactions, as its log closes, which merge from
    /// ``closingCheckpointEvents`` events on, so that the next process to open the log finds them
    /// indexed instead of reading them all again (up to `checkpointEvents` records for its first
    /// append or stream read).
    func advanceMerge(head: UInt64, after snapshot: Snapshot, closing: Bool = false, _ txn: Transaction) throws -> MergeStep? {
        // The tail as it stands (a reference to its storage, not a copy: nothing changes it while
        // the writer's transaction runs), so that readers are not held up while it is written.
        let (tail, underWay) = cache.withLock { ($0.tail, $0.merge) }
        var merge: StreamMerge
        let started: Bool
        if let underWay, underWay.target > snapshot.checkpoint {
            merge = underWay
            started = false
        } else if head - snapshot.checkpoint >= (closing ? Self.closingCheckpointEvents : UInt64(checkpointEvents)) {
            merge = StreamMerge(of: tail, through: head)
            started = true
        } else {
            return underWay.map { _ in MergeStep(merge: nil, started: false) }
        }
        precondition(tail.base == snapshot.checkpoint && tail.covered >= merge.target,
                     "the stream tail must cover the merge from the checkpoint")
        try txn.withCursor(databases.streams) { cursor in
            try merge.writeSlice(of: tail, entries: sliceEntries, &cursor)
        }
        if merge.isComplete {
            try txn.put(databases.meta, key: LogDatabases.streamsIndexedKey, value: Keys.position(merge.target))
        }
        return MergeStep(merge: merge.isComplete ? nil : merge, started: started)
    }

    /// Called by the writer once its transaction committed: its entries in the tail are
    /// committed ones now, and `step` (what the transaction did to the merge) stands. The tail
    /// drops what a completed merge indexed at the next snapshot, which shows the checkpoint.
    func committed(_ step: MergeStep?) {
        cache.withLock { cached in
            cached.pendingFrom = nil
            if let step { cached.merge = step.merge }
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
                let (stream, version): (UnsafeRawBufferPointer, UInt64)
                do {
                    (stream, version) = try RecordCodec.streamAndVersion(current.value)
                } catch {
                    throw EventLogError.corruptRecord(position: expected, reason: "\(error)")
                }
                tail.add(stream: stream, hash: NameHash.of(stream), position: expected, version: version)
                entry = try cursor.next()
            }
        }
        guard tail.covered >= head else {
            throw EventLogError.corruptRecord(position: tail.covered + 1, reason: "position \(tail.covered + 1) is missing")
        }
    }
}

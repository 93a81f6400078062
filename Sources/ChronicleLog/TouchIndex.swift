import Foundation
import ChronicleLMDB
import Synchronization

/// The last position each append key was touched at (``AppendKey/touch(_:)``), for the
/// conditions on it.
///
/// A group commit wrote each key its batches touched into `touches`, in its own transaction.
/// The keys the store's commands touch (a user's todos, each time a todo is created for them)
/// land all over that small, hot database, so every commit rewrote most of its pages: at
/// 1,000,000 events the touches doubled the bytes an append-batch wrote. So a group commit now
/// appends its touches as one entry of `touch-log`, keyed by the last position they name (always
/// past every earlier entry), and `touches` holds the touches up to a checkpoint
/// (`meta["touches-indexed"]`), moved with the stream index's: there the entries are folded into
/// `touches`, each page written once for many commits, and the log is emptied, in one transaction.
///
/// The entries after the checkpoint are read into a table in memory (each key's last position),
/// brought up to the snapshot of whichever transaction asks, which picks up other processes'
/// appends and checkpoints. Nothing is added to it that has not committed. A snapshot older than
/// the table reads a table of its own (entries are one per group commit, and the checkpoint
/// bounds them).
///
/// Thread rules: `cache` is guarded by its mutex; a transaction passed in is used only during
/// the call, on the caller's thread.
final class TouchIndex: Sendable {
    /// What a transaction sees: the checkpoint and the head of the log.
    struct Snapshot: Sendable {
        let checkpoint: UInt64
        let head: UInt64
    }

    /// The touches of the entries in `(base, covered]`: each key's last position (a
    /// ``NameTable``: reading an entry back makes no string of its keys).
    private struct Table: Sendable {
        var base: UInt64
        var covered: UInt64
        var positions = NameTable<UInt64>()

        init(after base: UInt64) {
            self.base = base
            self.covered = base
        }
    }

    let databases: LogDatabases
    private let cache = Mutex(Table(after: 0))

    init(databases: LogDatabases) {
        self.databases = databases
    }

    /// The checkpoint and head `txn` sees.
    func snapshot(_ txn: Transaction) throws -> Snapshot {
        Snapshot(checkpoint: try databases.touchesIndexedThrough(txn), head: try databases.headPosition(txn))
    }

    /// The position of the last batch in `snapshot` that touched `key`, or nil.
    func lastTouch(of key: String, in snapshot: Snapshot, _ txn: Transaction) throws -> UInt64? {
        var key = key
        let cached = try key.withUTF8 { bytes in
            let name = UnsafeRawBufferPointer(bytes), hash = NameHash.of(name)
            return try withTable(snapshot, txn) { table in table.positions.index(of: name, hash: hash).map { table.positions[$0] } }
        }
        if let position = cached { return position }
        guard let value = try txn.get(databases.touches, key: Array(key.utf8)) else { return nil }
        return try Self.position(ofTouch: key, value)
    }

    /// The position a `touches` value of `key` holds, which must be 8 bytes.
    private static func position(ofTouch key: String, _ value: UnsafeRawBufferPointer) throws(EventLogError) -> UInt64 {
        guard value.count == 8 else {
            throw .corruptRecord(position: 0, reason: "touch of key '\(key)' holds \(value.count) bytes, not 8")
        }
        return value.readBigEndian(UInt64.self, at: 0)
    }

    // MARK: - The writer

    /// The `touch-log` entry of a group commit's touches (each key's last position in it).
    static func entry(_ touches: [String: UInt64]) -> (key: [UInt8], value: [UInt8])? {
        guard let last = touches.values.max() else { return nil }
        var value: [UInt8] = []
        for (key, position) in touches {
            value.appendBigEndian(UInt16(key.utf8.count))
            value += key.utf8
            value.appendBigEndian(position)
        }
        return (Keys.position(last), value)
    }

    /// Folds every `touch-log` entry through `head` (the writer's last write) into `touches`, in
    /// key order, empties the log, and moves the checkpoint to `head`. In the writer's
    /// transaction; the table is left as it is (the next snapshot's newer checkpoint renews it).
    func checkpoint(through head: UInt64, _ txn: Transaction) throws {
        var table = Table(after: try databases.touchesIndexedThrough(txn))
        try extend(&table, to: head, txn)
        if table.positions.count > 0 {
            var keys = KeyList()
            var positions: [UInt64] = []
            positions.reserveCapacity(table.positions.count)
            for index in 0..<table.positions.count {
                table.positions.withName(index) { keys.append($0) }
                positions.append(table.positions[index])
            }
            try txn.withCursor(databases.touches) { cursor in
                for index in keys.sortedIndexes() {
                    try keys[index].withUnsafeBytes { key in
                        try withUnsafeBytes(of: positions[index].bigEndian) { try cursor.put(key: key, value: $0) }
                    }
                }
            }
            try txn.clear(databases.touchLog)
        }
        try txn.put(databases.meta, key: LogDatabases.touchesIndexedKey, value: Keys.position(head))
    }

    // MARK: - Verifying

    /// What is wrong with the touches `txn` sees, if anything (for ``EventLog/verify(progress:)``):
    /// their checkpoint past the head; a `touch-log` entry keyed outside `(checkpoint, head]`, or
    /// damaged, or naming a position outside `(checkpoint, its key]`; a `touches` value that is
    /// not a position up to the checkpoint.
    static func problem(_ databases: LogDatabases, _ txn: Transaction) throws -> VerifyReport.Problem? {
        let head = try databases.headPosition(txn)
        let checkpoint: UInt64
        do {
            checkpoint = try databases.touchesIndexedThrough(txn)
        } catch EventLogError.corruptRecord(_, let reason) {
            return .init(position: head, cause: .format, detail: reason)
        }
        guard checkpoint <= head else {
            return .init(position: head, cause: .index, detail: "meta touches-indexed says \(checkpoint), past the head \(head)")
        }
        if let problem = try logProblem(databases, after: checkpoint, through: head, txn) { return problem }
        return try txn.withCursor(databases.touches) { cursor -> VerifyReport.Problem? in
            var entry = try cursor.first()
            while let current = entry {
                let key = String(decoding: current.key, as: UTF8.self)
                let position: UInt64
                do {
                    position = try Self.position(ofTouch: key, current.value)
                } catch EventLogError.corruptRecord(_, let reason) {
                    return .init(position: checkpoint, cause: .format, detail: reason)
                }
                guard position <= checkpoint else {
                    return .init(position: position, cause: .index,
                                 detail: "touches says key '\(key)' was touched at \(position), past their checkpoint \(checkpoint)")
                }
                entry = try cursor.next()
            }
            return nil
        }
    }

    /// What is wrong with the `touch-log` entries, which must lie in `(checkpoint, head]`.
    private static func logProblem(_ databases: LogDatabases, after checkpoint: UInt64, through head: UInt64,
                                   _ txn: Transaction) throws -> VerifyReport.Problem? {
        try txn.withCursor(databases.touchLog) { cursor -> VerifyReport.Problem? in
            var entry = try cursor.first()
            while let current = entry {
                guard current.key.count == 8 else {
                    return .init(position: head, cause: .format, detail: "a touch-log key of \(current.key.count) bytes, not 8")
                }
                let last = current.key.readBigEndian(UInt64.self, at: 0)
                guard last > checkpoint, last <= head else {
                    return .init(position: last, cause: .index,
                                 detail: "a touch-log entry at \(last), outside the touches' checkpoint \(checkpoint) and the head \(head)")
                }
                var early: UInt64?
                do {
                    try read(current.value, last: last) { _, position in if position <= checkpoint { early = early ?? position } }
                } catch EventLogError.corruptRecord(let position, let reason) {
                    return .init(position: position, cause: .format, detail: reason)
                }
                if let early {
                    return .init(position: last, cause: .index,
                                 detail: "the touch-log entry at \(last) names position \(early), at or before the touches' checkpoint \(checkpoint)")
                }
                entry = try cursor.next()
            }
            return nil
        }
    }

    // MARK: - The table

    /// Runs `body` on the table of `snapshot`: the cached one, first brought up to the snapshot's
    /// checkpoint and head, or, for a snapshot older than the cache, one of its own.
    private func withTable<T: Sendable>(_ snapshot: Snapshot, _ txn: Transaction, _ body: (Table) -> T) throws -> T {
        try cache.withLock { table throws -> T in
            if snapshot.checkpoint < table.base || snapshot.head < table.covered {
                var own = Table(after: snapshot.checkpoint)
                try extend(&own, to: snapshot.head, txn)
                return body(own)
            }
            if snapshot.checkpoint > table.base { table = Table(after: snapshot.checkpoint) }
            if table.covered < snapshot.head { try extend(&table, to: snapshot.head, txn) }
            return body(table)
        }
    }

    /// Adds the `touch-log` entries in `(table.covered, head]`.
    private func extend(_ table: inout Table, to head: UInt64, _ txn: Transaction) throws {
        try txn.withCursor(databases.touchLog) { cursor in
            var entry = try cursor.seek(atLeast: Keys.position(table.covered + 1))
            while let current = entry {
                guard current.key.count == 8 else {
                    throw EventLogError.corruptRecord(position: 0, reason: "a touch-log key of \(current.key.count) bytes, not 8")
                }
                let last = current.key.readBigEndian(UInt64.self, at: 0)
                guard last <= head else { break }
                try Self.read(current.value, last: last) { key, position in table.positions.set(key, hash: NameHash.of(key), to: position) }
                entry = try cursor.next()
            }
        }
        table.covered = head
    }

    /// Calls `touch` for each key (its UTF-8 bytes, valid only during the call) and position of
    /// a `touch-log` entry whose key is `last`.
    private static func read(_ value: UnsafeRawBufferPointer, last: UInt64,
                             _ touch: (UnsafeRawBufferPointer, UInt64) -> Void) throws {
        var reader = ByteReader(buffer: value, offset: 0)
        while reader.offset < value.count {
            let (key, position): (UnsafeRawBufferPointer, UInt64)
            do throws(RecordError) {
                (key, position) = (try reader.text(length: Int(try reader.u16())), try reader.u64())
            } catch {
                throw EventLogError.corruptRecord(position: last, reason: "the touch-log entry at \(last) is damaged (\(error))")
            }
            guard position <= last else {
                throw EventLogError.corruptRecord(position: last, reason: "the touch-log entry at \(last) names position \(position)")
            }
            touch(key, position)
        }
    }
}

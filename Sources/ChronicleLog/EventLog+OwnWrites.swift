import ChronicleLMDB
import Synchronization

extension EventLog {
    /// The first position of each of `streams` at which this replica (``deviceID``) wrote,
    /// for the streams that have one before `end`, in one read transaction: what a merge
    /// needs to know first (whether its own writes are among a stream's earlier events; a
    /// device that pulls what others wrote has none). The records' origins are read in place,
    /// their checksums checked, without decoding them.
    ///
    /// The answers are remembered: positions never change, so a later call reads only the
    /// records a stream gained since (a catch-up asks about the same streams chunk after
    /// chunk, each time with `end` its chunk's first position, whose own records it holds).
    public func firstOwnPositions(inStreams streams: some Sequence<String>, before end: UInt64 = .max) throws -> [String: UInt64] {
        try withRead { txn in
            let through = min(try databases.headPosition(txn), end == 0 ? 0 : end - 1)
            // A device that wrote nothing before `end` (one that pulls what others wrote) is
            // answered at once.
            if let firstOwn = try databases.firstOwnPosition(txn), firstOwn == 0 || firstOwn > through { return [:] }
            return try ownWrites.withTable { table in
                var found: [String: UInt64] = [:]
                for stream in streams {
                    try firstOwnPosition(of: stream, through: through, &table[stream, default: OwnWrites.Stream()], txn)
                        .map { found[stream] = $0 }
                }
                return found
            }
        }
    }

    /// Brings what is known of `stream` up to `through` and returns its first own position, if at or before it.
    private func firstOwnPosition(of stream: String, through: UInt64, _ known: inout OwnWrites.Stream,
                                  _ txn: Transaction) throws -> UInt64? {
        if known.first == nil, known.checked < through {
            for position in try streamIndex.positions(of: stream, afterVersion: 0, limit: .max, txn)
            where position > known.checked && position <= through {
                guard let value = try txn.get(databases.events, key: Keys.position(position)) else {
                    throw EventLogError.corruptRecord(position: position, reason: "stream index points to a missing event")
                }
                if try databases.hasOrigin(value, position: position, deviceID) {
                    known.first = position
                    break
                }
            }
            known.checked = through
        }
        return known.first.flatMap { $0 <= through ? $0 : nil }
    }
}

/// Per stream, what ``EventLog/firstOwnPositions(inStreams:before:)`` found. Bounded: it
/// forgets everything once it holds ``capacity`` streams (the answers are then read again).
///
/// Thread rules: the table is guarded by its mutex, held for a whole call (one read transaction).
final class OwnWrites: Sendable {
    struct Stream: Sendable {
        /// Every event of the stream at or before this position was looked at.
        var checked: UInt64 = 0
        /// The first of them this replica wrote.
        var first: UInt64?
    }

    static let capacity = 100_000
    private let table = Mutex<[String: Stream]>([:])

    func withTable<T>(_ body: (inout [String: Stream]) throws -> T) rethrows -> T {
        try table.withLock { table in
            if table.count > Self.capacity { table.removeAll() }
            return try body(&table)
        }
    }
}

import Synchronization

extension EventLog {
    /// The first position of each of `streams` at which this replica (``deviceID``) wrote,
    /// for the streams that have one, in one read transaction: what a merge needs to know
    /// first (whether its own writes are among a stream's events; a device that pulls what
    /// others wrote has none). The records' origins are read in place, their checksums
    /// checked, without decoding them.
    ///
    /// The answers are remembered: positions never change, so a later call reads only the
    /// records each stream gained since (a catch-up asks about the same streams chunk after
    /// chunk).
    public func firstOwnPositions(inStreams streams: some Sequence<String>) throws -> [String: UInt64] {
        let wanted = Array(deviceID.utf8)
        return try withRead { txn in
            let head = try databases.headPosition(txn)
            var found: [String: UInt64] = [:]
            var learned: [String: OwnWrites.Stream] = [:]
            for stream in streams where learned[stream] == nil {
                let known = ownWrites[stream] ?? OwnWrites.Stream(checked: 0, first: nil)
                var answer = known
                if known.first == nil, known.checked < head {
                    for position in try streamIndex.positions(of: stream, afterVersion: 0, limit: .max, txn)
                    where position > known.checked {
                        guard let value = try txn.get(databases.events, key: Keys.position(position)) else {
                            throw EventLogError.corruptRecord(position: position, reason: "stream index points to a missing event")
                        }
                        if try databases.hasOrigin(value, position: position, wanted) {
                            answer.first = position
                            break
                        }
                    }
                    answer.checked = head
                }
                learned[stream] = answer
                if let first = answer.first { found[stream] = first }
            }
            ownWrites.remember(learned)
            return found
        }
    }
}

/// Per stream, what ``EventLog/firstOwnPositions(inStreams:)`` found. Bounded: it forgets
/// everything once it holds ``capacity`` streams (the answers are then read again).
///
/// Thread rules: the table is guarded by its mutex.
final class OwnWrites: Sendable {
    struct Stream: Sendable {
        /// Every event of the stream at or before this position was looked at.
        var checked: UInt64
        /// The first of them this replica wrote.
        var first: UInt64?
    }

    static let capacity = 100_000
    private let streams = Mutex<[String: Stream]>([:])

    subscript(stream: String) -> Stream? {
        streams.withLock { $0[stream] }
    }

    func remember(_ learned: [String: Stream]) {
        streams.withLock { streams in
            if streams.count + learned.count > Self.capacity { streams.removeAll() }
            streams.merge(learned) { _, new in new }
        }
    }
}

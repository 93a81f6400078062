import Foundation

extension EventLog {
    /// The positions the sync server gave these events (by their position here), for those a
    /// pull stored or brought back; an event missing from the answer is not known upstream
    /// (this replica's own, not pulled back yet).
    ///
    /// Merges order events by it: the server's order first, then the rest by position.
    ///
    /// ```swift
    /// let upstream = try log.upstreamPositions(of: events.map(\.position))
    /// upstream[12]   // 40: the server holds event 12 of this log at its position 40
    /// ```
    public func upstreamPositions(of positions: some Sequence<UInt64>) throws -> [UInt64: UInt64] {
        try withRead { txn in
            var found: [UInt64: UInt64] = [:]
            for position in positions {
                if let value = try txn.get(databases.upstream, key: Keys.position(position)), value.count == 8 {
                    found[position] = value.readBigEndian(UInt64.self, at: 0)
                }
            }
            return found
        }
    }

    /// ``upstreamPositions(of:)`` for every event in `range`, in one cursor pass over that part
    /// of the table: its cost follows the pulled events in the range, not the range's length.
    public func upstreamPositions(in range: ClosedRange<UInt64>) throws -> [UInt64: UInt64] {
        try withRead { txn in
            var found: [UInt64: UInt64] = [:]
            try txn.withCursor(databases.upstream) { cursor in
                var entry = try cursor.seek(atLeast: Keys.position(range.lowerBound))
                while let current = entry, current.key.count == 8 {
                    let position = current.key.readBigEndian(UInt64.self, at: 0)
                    guard position <= range.upperBound else { break }
                    if current.value.count == 8 { found[position] = current.value.readBigEndian(UInt64.self, at: 0) }
                    entry = try cursor.next()
                }
            }
            return found
        }
    }

    /// The position the sync server gave the event at `position`, or nil (see ``upstreamPositions(of:)``).
    public func upstreamPosition(of position: UInt64) throws -> UInt64? {
        try upstreamPositions(of: CollectionOfOne(position))[position]
    }
}

import Foundation

/// A note an appender stored with one of its batches (``EventLog/append(_:keys:note:)``).
public struct AppendNote: Sendable, Hashable {
    /// The batch's first and last positions (its events are consecutive).
    public var positions: ClosedRange<UInt64>
    /// The bytes the appender gave.
    public var bytes: [UInt8]

    /// Makes a note from its parts.
    public init(positions: ClosedRange<UInt64>, bytes: [UInt8]) {
        self.positions = positions
        self.bytes = bytes
    }
}

extension EventLog {
    /// The notes of the batches that begin after `position`, oldest first. Notes are written
    /// only by this log's own appends, in their transaction, so they are exactly the noted
    /// batches that committed, whichever process appended them.
    public func notes(after position: UInt64 = 0) throws -> [AppendNote] {
        try withRead { txn in
            var notes: [AppendNote] = []
            try txn.withCursor(databases.notes) { cursor in
                var entry = try cursor.seek(atLeast: Keys.position(position &+ 1))
                while let current = entry, position < .max {
                    guard current.key.count == 8, current.value.count >= 8 else {
                        throw EventLogError.corruptRecord(position: 0, reason: "a note of \(current.value.count) bytes under a key of \(current.key.count)")
                    }
                    let first = current.key.readBigEndian(UInt64.self, at: 0)
                    let last = current.value.readBigEndian(UInt64.self, at: 0)
                    guard first <= last else {
                        throw EventLogError.corruptRecord(position: first, reason: "a note ends at \(last), before it begins")
                    }
                    notes.append(AppendNote(positions: first...last, bytes: Array(current.value.dropFirst(8))))
                    entry = try cursor.next()
                }
            }
            return notes
        }
    }
}

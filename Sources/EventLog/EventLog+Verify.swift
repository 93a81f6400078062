import Foundation
import LMDB

extension EventLog {
    /// Checks every record: format, checksum, position (gap-free from 1), hash chain,
    /// and that the id and stream indexes hold one entry per event.
    ///
    /// Reads in chunks, one short read transaction each; `progress` gets the events checked so far.
    public func verify(progress: (Int, UInt64) -> Void = { _, _ in }) throws -> VerifyReport {
        let head = try head()
        var report = VerifyReport(eventsChecked: 0, head: head, headHash: "", problem: nil)
        var expected: UInt64 = 1
        var previousHash = RecordCodec.genesisHash
        var done = false
        while !done {
            try withRead { txn in
                try txn.withCursor(databases.events) { cursor in
                    var entry = try cursor.seek(atLeast: Keys.position(expected))
                    var inChunk = 0
                    while let current = entry {
                        guard current.key.count == 8 else {
                            report.problem = .init(position: expected, cause: .format, detail: "a key of \(current.key.count) bytes in the events table")
                            done = true; return
                        }
                        let position = current.key.readBigEndian(UInt64.self, at: 0)
                        if let problem = Self.check(record: current.value, position: position, expected: expected, previousHash: previousHash) {
                            report.problem = problem
                            done = true; return
                        }
                        previousHash = Array(current.value[RecordCodec.hashRange])
                        report.eventsChecked += 1
                        expected = position + 1
                        inChunk += 1
                        if inChunk == 10_000 { return }
                        entry = try cursor.next()
                    }
                    done = true
                }
            }
            progress(report.eventsChecked, head)
        }
        report.headHash = previousHash.map { String(format: "%02x", $0) }.joined()
        if report.problem == nil {
            let (ids, streams, events) = try withRead { txn in
                (try txn.count(databases.ids), try txn.count(databases.streams), try txn.count(databases.events))
            }
            if ids != events || streams != events {
                report.problem = .init(position: head, cause: .index,
                                       detail: "\(events) events but \(ids) id index and \(streams) stream index entries")
            }
        }
        return report
    }

    static func check(record: UnsafeRawBufferPointer, position: UInt64, expected: UInt64,
                      previousHash: [UInt8]) -> VerifyReport.Problem? {
        if position != expected {
            return .init(position: expected, cause: .gap, detail: "position \(expected) is missing (next stored is \(position))")
        }
        guard record.count >= RecordCodec.headerSize else {
            return .init(position: position, cause: .format, detail: "record is truncated (\(record.count) bytes)")
        }
        guard record[0] >= 1, record[0] <= RecordCodec.currentFormat else {
            return .init(position: position, cause: .format, detail: "unknown record format \(record[0])")
        }
        // Format 1 defines no flags; the byte is outside the checksum, so check it here.
        guard record[1] == 0 else {
            return .init(position: position, cause: .format, detail: "unknown record flags \(record[1])")
        }
        guard RecordCodec.checksumMatches(record) else {
            return .init(position: position, cause: .checksum, detail: "the record's bytes do not match its checksum")
        }
        if let stored = try? RecordCodec.decode(record), stored.position != position {
            return .init(position: position, cause: .position, detail: "record says position \(stored.position)")
        }
        do { _ = try RecordCodec.decode(record) } catch {
            return .init(position: position, cause: .format, detail: error.description)
        }
        let hash = RecordCodec.chainHash(of: record, previousHash: previousHash)
        guard hash == Array(record[RecordCodec.hashRange]) else {
            return .init(position: position, cause: .chain, detail: "hash does not follow from the previous event")
        }
        return nil
    }
}

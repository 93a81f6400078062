import Foundation
import ChronicleLMDB

extension EventLog {
    /// Checks every record: format, checksum, position (gap-free from 1), hash chain,
    /// and that the id index holds one entry per event, the stream index one per event up
    /// to its checkpoint, `meta["first-own"]` the first event this store's device wrote, and
    /// the append keys' touches positions up to the head (`touches` up to their checkpoint,
    /// each `touch-log` entry after it).
    ///
    /// Reads in chunks, one short read transaction each; `progress` gets the events checked so far.
    public func verify(progress: (Int, UInt64) -> Void = { _, _ in }) throws -> VerifyReport {
        let head = try head()
        var report = VerifyReport(eventsChecked: 0, head: head, headHash: "", problem: nil)
        var expected: UInt64 = 1
        var previousHash = RecordCodec.genesisHash
        var firstOwn: UInt64?   // the first event this store's device wrote, to check meta["first-own"] by
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
                        let stored: RecordedEvent
                        switch Self.check(record: current.value, position: position, expected: expected, previousHash: previousHash) {
                        case .damaged(let problem):
                            report.problem = problem
                            done = true; return
                        case .intact(let event):
                            stored = event
                        }
                        previousHash = stored.hash
                        if firstOwn == nil, stored.origin == deviceID { firstOwn = position }
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
            let (ids, streams, events, indexed) = try withRead { txn in
                let indexed = try databases.streamsIndexedThrough(txn)
                let streams = try StreamIndex.entries(through: indexed, databases, txn)
                return (try txn.count(databases.ids), streams...streams, try txn.count(databases.events), indexed)
            }
            if let detail = Self.indexProblem(events: events, ids: ids, streams: streams, indexedThrough: indexed) {
                report.problem = .init(position: head, cause: .index, detail: detail)
            } else if let recorded = try withRead({ txn in try databases.firstOwnPosition(txn) }), recorded != firstOwn ?? 0,
                      recorded < expected {   // (not one appended after the scan passed)
                report.problem = .init(position: firstOwn ?? recorded, cause: .index,
                                       detail: "meta first-own says \(recorded), but the first event of this store's device is "
                                           + (firstOwn.map { "at \($0)" } ?? "none"))
            } else if let problem = try withRead({ txn in try TouchIndex.problem(databases, txn) }) {
                report.problem = problem
            } else if let problem = try withRead({ txn in try Self.headProblem(txn, databases) }) {
                // What a store opened for use checks too: the tables' own entry counts (LMDB's
                // records of them, which the walks above do not read) against the events.
                report.problem = problem
            }
        }
        return report
    }

    /// The cheap health check for a store opened for use (``Options/checkHeadOnOpen``): the
    /// last record (format, checksum, position, and its chain link to the record before,
    /// whose checksum is checked too) and the size of the indexes. Constant time, whatever
    /// the log's length; damage deeper in the log shows when a read reaches it (every read
    /// checks the record's checksum) and in ``verify(progress:)``.
    ///
    /// - throws: ``EventLogError/corruptRecord(position:reason:)`` naming what is wrong.
    public func checkHead() throws {
        try Self.checkHead(environment, databases)
    }

    static func checkHead(_ environment: Environment, _ databases: LogDatabases) throws(EventLogError) {
        let problem: VerifyReport.Problem?
        do {
            problem = try environment.read { txn in try headProblem(txn, databases) }
        } catch let error as EventLogError {
            throw error
        } catch let error as LMDBError {
            throw .storage(error)
        } catch {
            throw .corruptRecord(position: 0, reason: "\(error)")
        }
        if let problem {
            throw .corruptRecord(position: problem.position, reason: "\(problem.cause.rawValue): \(problem.detail)")
        }
    }

    private static func headProblem(_ txn: Transaction, _ databases: LogDatabases) throws -> VerifyReport.Problem? {
        let events = try txn.count(databases.events)
        let ids = try txn.count(databases.ids)
        let indexed = try databases.streamsIndexedThrough(txn)
        // Up to one entry per event past the checkpoint may be there too (a merge's: StreamIndex).
        let total = try txn.count(databases.streams)
        let streams = max(0, total - max(0, events - Int(clamping: indexed)))...total
        return try txn.withCursor(databases.events) { cursor -> VerifyReport.Problem? in
            guard let last = try cursor.last() else {
                return indexProblem(events: 0, ids: ids, streams: streams, indexedThrough: indexed)
                    .map { .init(position: 0, cause: .index, detail: $0) }
            }
            guard last.key.count == 8 else {
                return .init(position: 0, cause: .format, detail: "a key of \(last.key.count) bytes in the events table")
            }
            let position = last.key.readBigEndian(UInt64.self, at: 0)
            guard position == UInt64(events) else {
                return .init(position: position, cause: .gap,
                             detail: "the log holds \(events) events but its last position is \(position)")
            }
            if let detail = indexProblem(events: events, ids: ids, streams: streams, indexedThrough: indexed) {
                return .init(position: position, cause: .index, detail: detail)
            }
            var previousHash = RecordCodec.genesisHash
            if position > 1 {
                guard let previous = try cursor.previous(), previous.key.count == 8,
                      previous.key.readBigEndian(UInt64.self, at: 0) == position - 1 else {
                    return .init(position: position - 1, cause: .gap, detail: "position \(position - 1) is missing")
                }
                guard previous.value.count >= RecordCodec.headerSize, RecordCodec.checksumMatches(previous.value) else {
                    return .init(position: position - 1, cause: .checksum, detail: "the record's bytes do not match its checksum")
                }
                previousHash = Array(previous.value[RecordCodec.hashRange])
            }
            guard case .damaged(let problem) = check(record: last.value, position: position, expected: position,
                                                     previousHash: previousHash) else { return nil }
            return problem
        }
    }

    /// What is wrong with the index sizes, if anything: one `ids` entry per event, one
    /// `streams` entry per event up to the stream index's checkpoint (positions are gap-free).
    /// `streams`: how many `streams` entries are at or before the checkpoint, or the range that
    /// number must lie in, when only the whole index was counted.
    static func indexProblem(events: Int, ids: Int, streams: ClosedRange<Int>, indexedThrough: UInt64) -> String? {
        if ids == events, streams.contains(Int(clamping: indexedThrough)), indexedThrough <= UInt64(events) { return nil }
        let entries = streams.count == 1 ? "\(streams.lowerBound)" : "\(streams.lowerBound) to \(streams.upperBound)"
        return "\(events) events but \(ids) id index entries, and \(entries) stream index entries "
            + "for the \(indexedThrough) events up to the stream index's checkpoint"
    }

    /// What ``check(record:position:expected:previousHash:)`` found: the record, decoded, or its first problem.
    enum RecordCheck {
        case intact(RecordedEvent)
        case damaged(VerifyReport.Problem)
    }

    static func check(record: UnsafeRawBufferPointer, position: UInt64, expected: UInt64,
                      previousHash: [UInt8]) -> RecordCheck {
        if position != expected {
            return .damaged(.init(position: expected, cause: .gap, detail: "position \(expected) is missing (next stored is \(position))"))
        }
        guard record.count >= RecordCodec.headerSize else {
            return .damaged(.init(position: position, cause: .format, detail: "record is truncated (\(record.count) bytes)"))
        }
        guard record[0] >= 1, record[0] <= RecordCodec.currentFormat else {
            return .damaged(.init(position: position, cause: .format, detail: "unknown record format \(record[0])"))
        }
        // Format 1 defines no flags; the byte is outside the checksum, so check it here.
        guard record[1] == 0 else {
            return .damaged(.init(position: position, cause: .format, detail: "unknown record flags \(record[1])"))
        }
        guard RecordCodec.checksumMatches(record) else {
            return .damaged(.init(position: position, cause: .checksum, detail: "the record's bytes do not match its checksum"))
        }
        let stored: RecordedEvent
        do { stored = try RecordCodec.decode(record) } catch {
            return .damaged(.init(position: position, cause: .format, detail: error.description))
        }
        if stored.position != position {
            return .damaged(.init(position: position, cause: .position, detail: "record says position \(stored.position)"))
        }
        let hash = RecordCodec.chainHash(of: record, previousHash: previousHash)
        guard hash == Array(record[RecordCodec.hashRange]) else {
            return .damaged(.init(position: position, cause: .chain, detail: "hash does not follow from the previous event"))
        }
        return .intact(stored)
    }
}

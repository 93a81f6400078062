import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// The stream index: on disk up to a checkpoint, in memory after it (rebuilt from the log).
@Suite(.timeLimit(.minutes(10)))
struct StreamIndexTests {
    /// Every `checkpoint` events the writer moves the index's checkpoint.
    static func options(checkpoint: Int) -> EventLog.Options {
        EventLog.Options(streamIndexCheckpoint: checkpoint)
    }

    /// Appends `count` single-event batches to `streams` in turn, each with the exact expected
    /// version; returns each stream's events' positions.
    @discardableResult
    static func appendInTurn(_ log: EventLog, streams: [String], count: Int) async throws -> [String: [UInt64]] {
        var positions: [String: [UInt64]] = [:]
        for n in 0..<count {
            let stream = streams[n % streams.count]
            let version = try log.version(of: stream)
            let expected: ExpectedVersion = version == 0 ? .noStream : .exact(version)
            let result = try await log.append(to: stream, expected: expected, events: [makeEvent("N", #"{"n":\#(n)}"#)])
            positions[stream, default: []] += result.positions
        }
        return positions
    }

    /// Checks every stream's reads and version against the positions it was given.
    static func expectStreams(_ log: EventLog, _ positions: [String: [UInt64]]) throws {
        for (stream, expected) in positions {
            let events = try log.read(stream: stream)
            #expect(events.map(\.position) == expected, "stream \(stream)")
            #expect(events.map(\.version) == Array(1...UInt64(expected.count)), "stream \(stream)")
            #expect(try log.version(of: stream) == UInt64(expected.count))
            // A read from the middle starts on either side of the checkpoint.
            let later = try log.read(stream: stream, afterVersion: 3, limit: 2)
            #expect(later.map(\.version) == [4, 5].filter { $0 <= expected.count }, "stream \(stream)")
            // The version as of a position counts the stream's events up to it (what a
            // decision read there expects): before, at and after each of its events.
            for (index, position) in expected.enumerated() {
                #expect(try log.version(of: stream, asOf: position - 1) == UInt64(index), "stream \(stream) before \(position)")
                #expect(try log.version(of: stream, asOf: position) == UInt64(index + 1), "stream \(stream) at \(position)")
            }
            #expect(try log.version(of: stream, asOf: .max) == UInt64(expected.count))
        }
    }

    @Test func versionsAndStreamReadsHoldOnBothSidesOfTheCheckpoint() async throws {
        try await TestStore.with { store in
            let streams = ["a", "b", "c", "d"]
            try await store.withLog(Self.options(checkpoint: 10)) { log throws in
                var positions = try await Self.appendInTurn(log, streams: ["early"], count: 1)
                positions.merge(try await Self.appendInTurn(log, streams: streams, count: 36)) { $0 + $1 }
                try Self.expectStreams(log, positions)
                // A stale expected version is refused whether the stream's last event is indexed
                // on disk ("early", at position 1) or only in memory ("d", version 9 at 37).
                await #expect(throws: EventLogError.conflict(stream: "early", expected: .noStream, actual: 1)) {
                    try await log.append(to: "early", expected: .noStream, events: [makeEvent()])
                }
                await #expect(throws: EventLogError.conflict(stream: "d", expected: .exact(8), actual: 9)) {
                    try await log.append(to: "d", expected: .exact(8), events: [makeEvent()])
                }
                await #expect(throws: EventLogError.conflict(stream: "e", expected: .exact(1), actual: 0)) {
                    try await log.append(to: "e", expected: .exact(1), events: [makeEvent()])
                }
                #expect(try log.verify().isIntact)
            }
            // The checkpoint moved every 10 events; the index on disk holds the first 30.
            try RawLog.with(store.logPath) { raw throws in
                #expect(try raw.meta("streams-indexed") == RawLog.key(30))
                #expect(try raw.counts() == (events: 37, ids: 37, streams: 30))
            }
        }
    }

    @Test func aReopenedStoreRebuildsTheTailFromTheLog() async throws {
        try await TestStore.with { store in
            let streams = ["user-1", "todo-1", "todo-2"]
            var positions = try await store.withLog(Self.options(checkpoint: 8)) { log throws in
                try await Self.appendInTurn(log, streams: streams, count: 20)
            }
            // Reopened with a larger checkpoint distance: 4 events are only in the log.
            try await store.withLog(Self.options(checkpoint: 1_000)) { log throws in
                try Self.expectStreams(log, positions)
                let more = try await Self.appendInTurn(log, streams: streams, count: 9)
                positions.merge(more) { $0 + $1 }
                try Self.expectStreams(log, positions)
            }
            try RawLog.with(store.logPath) { raw throws in
                #expect(try raw.meta("streams-indexed") == RawLog.key(16))
                #expect(try raw.counts().streams == 16)
            }
        }
    }

    /// Appends `count` events to `streams` in turn, in batches of 100, without expected versions.
    static func appendInBatches(_ log: EventLog, streams: [String], count: Int) async throws {
        for start in stride(from: 0, to: count, by: 100) {
            let appends = (start..<min(count, start + 100)).map { n in
                StreamAppend(stream: streams[n % streams.count], events: [makeEvent("N", #"{"n":\#(n)}"#)])
            }
            _ = try await log.append(appends)
        }
    }

    @Test("a log this process wrote to indexes its tail as it closes, from 1,000 events after the checkpoint",
          arguments: [(999, 0), (1_000, 1_000), (1_234, 1_234)] as [(Int, UInt64)])
    func closingCheckpoint(events: Int, checkpoint: UInt64) async throws {
        try await TestStore.with { store in
            let streams = ["user-1", "todo-1", "todo-2", "todo-3"]
            try await store.withLog(Self.options(checkpoint: 50_000)) { log throws in
                try await Self.appendInBatches(log, streams: streams, count: events)
            }
            try RawLog.with(store.logPath) { raw throws in
                #expect(try raw.meta("streams-indexed") == RawLog.key(checkpoint))
                #expect(try raw.counts().streams == Int(checkpoint))
            }
            // Reopened, the index answers the same on both sides of the checkpoint, and appends
            // after it check their expected versions against it.
            try await store.withLog(Self.options(checkpoint: 50_000)) { log throws in
                var positions: [String: [UInt64]] = [:]
                for position in 1...UInt64(events) { positions[streams[Int(position - 1) % streams.count], default: []].append(position) }
                try Self.expectStreams(log, positions)
                let version = UInt64(positions["todo-1"]!.count)
                await #expect(throws: EventLogError.conflict(stream: "todo-1", expected: .exact(version - 1), actual: version)) {
                    try await log.append(to: "todo-1", expected: .exact(version - 1), events: [makeEvent()])
                }
                _ = try await log.append(to: "todo-1", expected: .exact(version), events: [makeEvent()])
                #expect(try log.verify().isIntact)
            }
        }
    }

    @Test func aBatchSpanningTheCheckpointIndexesEveryEventOnce() async throws {
        try await TestStore.with { store in
            try await store.withLog(Self.options(checkpoint: 5)) { log throws in
                // One batch of 12 events on two streams moves the checkpoint past all of them.
                let events = (0..<12).map { makeEvent("N", #"{"n":\#($0)}"#) }
                let result = try await log.append([
                    StreamAppend(stream: "x", expected: .noStream, events: Array(events[..<7])),
                    StreamAppend(stream: "y", expected: .noStream, events: Array(events[7...])),
                ])
                #expect(result.positions == Array(1...12))
                try Self.expectStreams(log, ["x": Array(1...7), "y": Array(8...12)])
                try await log.append(to: "x", expected: .exact(7), events: [makeEvent()])
                #expect(try log.version(of: "x") == 8)
                #expect(try log.verify().isIntact)
            }
            try RawLog.with(store.logPath) { raw throws in
                #expect(try raw.meta("streams-indexed") == RawLog.key(12))
                #expect(try raw.counts().streams == 12)
            }
        }
    }

    @Test func aStoreOfFormatOneIsReadAndUpgradedByItsFirstAppend() async throws {
        try await TestStore.with { store in
            // A checkpoint after every commit indexes every event on disk, as format 1 did.
            let positions = try await store.withLog(Self.options(checkpoint: 1)) { log throws in
                try await Self.appendInTurn(log, streams: ["p", "q"], count: 6)
            }
            try RawLog.with(store.logPath) { raw throws in
                try raw.deleteMeta("streams-indexed")
                try raw.setMeta("format", [1])
            }
            try await store.withLog { log throws in
                try Self.expectStreams(log, positions)
                #expect(try log.verify().isIntact)
            }
            // Opening added the (empty) key databases of formats 3 and 4; the index waits for the first append.
            try RawLog.with(store.logPath) { raw throws in
                #expect(try raw.meta("format") == [8])
                #expect(try raw.meta("streams-indexed") == nil)
            }
            try await store.withLog { log throws in
                try await log.append(to: "p", expected: .exact(3), events: [makeEvent()])
                #expect(try log.read(stream: "p").map(\.version) == [1, 2, 3, 4])
                #expect(try log.verify().isIntact)
            }
            try RawLog.with(store.logPath) { raw throws in
                #expect(try raw.meta("format") == [8])
                #expect(try raw.meta("streams-indexed") == RawLog.key(6))
                #expect(try raw.counts() == (events: 7, ids: 7, streams: 6))
            }
        }
    }

    /// Damage that leaves the stream index's count up to its checkpoint off.
    enum IndexDamage: CaseIterable, Sendable {
        /// The checkpoint says 5 events; the index holds 4.
        case checkpointPastItsEntries
        /// As many entries as the checkpoint (4), but one of them past it and one before it missing.
        case entryBeforeMissingOnePastIt
    }

    @Test("verify counts the stream index's entries up to its checkpoint, not those past it",
          arguments: IndexDamage.allCases)
    func aMissingStreamIndexEntryBeforeTheCheckpointFailsVerify(_ damage: IndexDamage) async throws {
        try await TestStore.with { store in
            try await store.withLog(Self.options(checkpoint: 4)) { log throws in
                try await Self.appendInTurn(log, streams: ["s"], count: 6)
            }
            try RawLog.with(store.logPath) { raw throws in
                #expect(try raw.meta("streams-indexed") == RawLog.key(4))
                switch damage {
                case .checkpointPastItsEntries:
                    try raw.setMeta("streams-indexed", RawLog.key(5))
                case .entryBeforeMissingOnePastIt:
                    try raw.deleteStreamEntry("s", position: 2)
                    try raw.putStreamEntry("s", position: 5, version: 5)
                }
            }
            try await store.withLog { log throws in
                let report = try log.verify()
                let (entries, indexed) = damage == .checkpointPastItsEntries ? (4, 5) : (3, 4)
                #expect(report.problem?.cause == .index)
                #expect(report.problem?.detail == "6 events but 6 id index entries, and \(entries) stream index entries "
                    + "for the \(indexed) events up to the stream index's checkpoint")
                // The head check counts the whole index in constant time: it cannot tell the second.
                if damage == .checkpointPastItsEntries {
                    #expect(throws: EventLogError.self) { try log.checkHead() }
                } else {
                    try log.checkHead()
                }
            }
        }
    }

    @Test func aDamagedRecordAfterTheCheckpointIsNamedNotIndexedWrongly() async throws {
        try await TestStore.with { store in
            try await store.withLog(Self.options(checkpoint: 100)) { log throws in
                try await Self.appendInTurn(log, streams: ["s", "t"], count: 6)
            }
            try RawLog.with(store.logPath) { raw throws in
                try raw.modifyRecord(at: 3) { $0[$0.count - 2] ^= 0x20 }
            }
            try await store.withLog { log throws in
                #expect(throws: EventLogError.corruptRecord(position: 3, reason: "checksum mismatch")) {
                    try log.version(of: "t")
                }
                await #expect(throws: EventLogError.self) {
                    try await log.append(to: "s", expected: .exact(3), events: [makeEvent()])
                }
                #expect(try log.head() == 6)   // the refused append wrote nothing
            }
        }
    }
}

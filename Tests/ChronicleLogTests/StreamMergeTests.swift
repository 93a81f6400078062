import ChronicleTestSupport
@testable import ChronicleLog
import Foundation
import Testing

/// The stream index's merge: the events after the checkpoint written into `streams` a slice of
/// the streams per write transaction, with entries past the checkpoint read from the tail alone.
@Suite(.timeLimit(.minutes(5)))
struct StreamMergeTests {
    /// The checkpoint and the number of `streams` entries, as a transaction of `log` sees them.
    static func indexState(_ log: EventLog) throws -> (checkpoint: UInt64, entries: Int) {
        try log.environment.read { txn in (try log.databases.streamsIndexedThrough(txn), try txn.count(log.databases.streams)) }
    }

    @Test func aMergeWritesASliceATransactionAndReadsHoldBetweenThem() async throws {
        try await TestStore.with { store in
            try await store.withLog(EventLog.Options(streamIndexCheckpoint: 16)) { log throws in
                // 16 events, 2 a stream: the 16th commit plans the merge and writes its first
                // slice, a sixteenth of 16 entries: one stream.
                var positions = try await StreamIndexTests.appendInTurn(log, streams: (0..<8).map { "s\($0)" }, count: 16)
                var states = [try Self.indexState(log)]
                for _ in 0..<7 {
                    positions.merge(try await StreamIndexTests.appendInTurn(log, streams: ["t"], count: 1)) { $0 + $1 }
                    // Entries past the checkpoint are in both `streams` and the tail: read once.
                    try StreamIndexTests.expectStreams(log, positions)
                    #expect(try log.verify().isIntact)
                    states.append(try Self.indexState(log))
                }
                // Each commit wrote one more stream; the one that wrote the last moved the checkpoint.
                #expect(states.map(\.checkpoint) == [0, 0, 0, 0, 0, 0, 0, 16])
                #expect(states.map(\.entries) == [2, 4, 6, 8, 10, 12, 14, 16])
                await #expect(throws: EventLogError.conflict(stream: "s0", expected: .exact(1), actual: 2)) {
                    try await log.append(to: "s0", expected: .exact(1), events: [makeEvent()])
                }
            }
        }
    }

    @Test func entriesAMergeLeftPastTheCheckpointAreReadOnceAndWrittenAgain() async throws {
        try await TestStore.with { store in
            let streams = ["a", "b", "c", "d"]
            var positions = try await store.withLog(EventLog.Options(streamIndexCheckpoint: 1_000)) { log throws in
                try await StreamIndexTests.appendInTurn(log, streams: streams, count: 20)
            }
            // What a process stopped in the middle of a merge leaves: the first streams' entries
            // past the checkpoint.
            try RawLog.with(store.logPath) { raw throws in
                #expect(try raw.meta("streams-indexed") == RawLog.key(0))
                for stream in ["a", "b"] {
                    for (version, position) in positions[stream]!.enumerated() {
                        try raw.putStreamEntry(stream, position: position, version: UInt64(version + 1))
                    }
                }
            }
            try await store.withLog(EventLog.Options(streamIndexCheckpoint: 1_000)) { log throws in
                try StreamIndexTests.expectStreams(log, positions)
                await #expect(throws: EventLogError.conflict(stream: "a", expected: .exact(4), actual: 5)) {
                    try await log.append(to: "a", expected: .exact(4), events: [makeEvent()])
                }
                #expect(try log.verify().isIntact)
            }
            // The next merge plans them again and counts each once.
            try await store.withLog(EventLog.Options(streamIndexCheckpoint: 16)) { log throws in
                positions.merge(try await StreamIndexTests.appendInTurn(log, streams: ["e"], count: 1)) { $0 + $1 }
                try StreamIndexTests.expectStreams(log, positions)
            }
            try RawLog.with(store.logPath) { raw throws in
                #expect(try raw.meta("streams-indexed") == RawLog.key(21))
                #expect(try raw.counts() == (events: 21, ids: 21, streams: 21))
            }
        }
    }

    /// Random batches, some with a stale expected version, through several openings with random
    /// merge intervals (each closing finishes its merge under way): every stream reads back as
    /// the list of its appended events after every batch, and a refused batch writes nothing.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomBatchesReadAsTheirEventsThroughMergesAndReopenings(seed: UInt64) async throws {
        try await TestStore.with { store in
            var random = TestSeed.generator(for: "StreamMergeTests.lane\(seed)")
            var positions: [String: [UInt64]] = [:]
            for _ in 0..<4 {
                let checkpoint = Int.random(in: 3...20, using: &random)
                (positions, random) = try await store.withLog(EventLog.Options(streamIndexCheckpoint: checkpoint)) { log throws in
                    var positions = positions, random = random
                    for _ in 0..<30 {
                        let stale = Int.random(in: 0..<5, using: &random) == 0
                        var appends: [StreamAppend] = []
                        for _ in 0..<Int.random(in: 1...4, using: &random) {
                            let stream = "r\(Int.random(in: 0..<12, using: &random))"
                            let events = (0..<Int.random(in: 1...3, using: &random)).map { _ in makeEvent() }
                            appends.append(StreamAppend(stream: stream, events: events))
                        }
                        if stale, let known = positions.first(where: { !$0.value.isEmpty }) {
                            let expected = ExpectedVersion.exact(UInt64(known.value.count - 1))
                            let head = try log.head()
                            await #expect(throws: EventLogError.self) {
                                try await log.append(appends + [StreamAppend(stream: known.key, expected: expected, events: [makeEvent()])])
                            }
                            #expect(try log.head() == head)
                        } else {
                            let result = try await log.append(appends)
                            var index = 0
                            for append in appends {
                                for _ in append.events {
                                    positions[append.stream, default: []].append(result.positions[index])
                                    index += 1
                                }
                            }
                        }
                        try StreamIndexTests.expectStreams(log, positions)
                    }
                    #expect(try log.verify().isIntact)
                    return (positions, random)
                }
            }
            #expect(positions.values.map(\.count).reduce(0, +) > 100)
        }
    }
}

import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// Random batches checked against a plain model of `EventLog.append`'s rules: each append's
/// expected version judged after the batch's earlier appends to its stream, a refused batch
/// writing nothing, a stored id (or one repeated in the batch) not written again, a batch of
/// stored ids alone returning their positions unjudged (a retry).
@Suite(.timeLimit(.minutes(5)))
struct AppendModelTests {
    /// What the log should hold.
    struct Model {
        var head: UInt64 = 0
        var positions: [String: [UInt64]] = [:]
        var stored: [UUID: UInt64] = [:]
        var events: [NewEvent] = []

        func version(of stream: String) -> UInt64 { UInt64(positions[stream]?.count ?? 0) }

        /// What an append should return.
        struct Outcome {
            let positions: [UInt64]
            let appended: Int
        }

        /// What appending `batch` should return, or the conflict it should throw; applies it.
        mutating func append(_ batch: [StreamAppend]) -> Result<Outcome, EventLogError> {
            // Each event's position: stored, the same as its id's first event in the batch, or new (nil).
            var firstInBatch: [UUID: Int] = [:]
            var known: [UInt64?] = []
            var isNew: [Bool] = []
            for append in batch {
                for event in append.events {
                    if let stored = stored[event.id] {
                        known.append(stored); isNew.append(false)
                    } else if let first = firstInBatch[event.id] {
                        known.append(known[first]); isNew.append(false)
                    } else {
                        firstInBatch[event.id] = known.count
                        known.append(nil); isNew.append(true)
                    }
                }
            }
            if known.allSatisfy({ $0 != nil }) {
                return .success(Outcome(positions: known.map { $0! }, appended: 0))
            }
            var reached: [String: UInt64] = [:]
            var index = 0
            for append in batch {
                let actual = reached[append.stream] ?? version(of: append.stream)
                guard append.expected.isSatisfied(byActual: actual) else {
                    return .failure(.conflict(stream: append.stream, expected: append.expected, actual: actual))
                }
                let added = append.events.indices.filter { isNew[index + $0] }.count
                reached[append.stream] = actual + UInt64(added)
                index += append.events.count
            }
            var positions: [UInt64] = []
            index = 0
            var appended = 0
            for append in batch {
                for event in append.events {
                    if isNew[index] {
                        head += 1
                        stored[event.id] = head
                        self.positions[append.stream, default: []].append(head)
                        events.append(event)
                        appended += 1
                        positions.append(head)
                    } else {
                        positions.append(known[index] ?? stored[event.id]!)
                    }
                    index += 1
                }
            }
            return .success(Outcome(positions: positions, appended: appended))
        }
    }

    /// A random batch: one to four appends to three streams, each of zero to two events (a new
    /// one, a stored one again, or one from earlier in the batch), expecting any version, the
    /// right one as the batch has reached it, a wrong one, or no stream.
    static func batch(_ model: Model, _ random: inout SeededGenerator) -> [StreamAppend] {
        var appends: [StreamAppend] = []
        var inBatch: [NewEvent] = []
        var reached: [String: UInt64] = [:]
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let stream = ["a", "b", "c"].randomElement(using: &random)!
            var events: [NewEvent] = []
            for _ in 0..<Int.random(in: 0...2, using: &random) {
                switch Int.random(in: 0..<8, using: &random) {
                case 0 where !model.events.isEmpty: events.append(model.events.randomElement(using: &random)!)
                case 1 where !inBatch.isEmpty: events.append(inBatch.randomElement(using: &random)!)
                default: events.append(makeEvent())
                }
            }
            inBatch += events
            let actual = reached[stream] ?? model.version(of: stream)
            let expected: ExpectedVersion = switch Int.random(in: 0..<6, using: &random) {
            case 0: .any
            case 1: .exact(actual + 1)
            case 2: .noStream
            default: actual == 0 ? .noStream : .exact(actual)
            }
            // As the batch would reach it if every event were new (the model judges it exactly).
            reached[stream] = actual + UInt64(events.count)
            appends.append(StreamAppend(stream: stream, expected: expected, events: events))
        }
        return appends
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomBatchesDoWhatTheModelDoes(seed: UInt64) async throws {
        try await TestStore.with { store in
            try await store.withLog(EventLog.Options(streamIndexCheckpoint: 10)) { log throws in
                var random = TestSeed.generator(for: "AppendModelTests.lane\(seed)")
                var model = Model()
                var outcomes = (appended: 0, refused: 0, retries: 0)
                var lastAppended: [StreamAppend] = []
                for round in 0..<200 {
                    // Once at the end, if chance made none, a retry of the last batch appended.
                    let retry = round == 199 && outcomes.retries == 0 && !lastAppended.isEmpty
                    let batch = retry ? lastAppended : Self.batch(model, &random)
                    guard batch.contains(where: { !$0.events.isEmpty }) else { continue }
                    switch model.append(batch) {
                    case .success(let expected):
                        let result = try await log.append(batch)
                        #expect(result.positions == expected.positions)
                        #expect(result.appended == expected.appended)
                        if expected.appended == 0 { outcomes.retries += 1 } else { outcomes.appended += 1 }
                        if expected.appended > 0 { lastAppended = batch }
                    case .failure(let conflict):
                        await #expect(throws: conflict) { try await log.append(batch) }
                        outcomes.refused += 1
                    }
                    #expect(try log.head() == model.head)
                    for stream in ["a", "b", "c"] {
                        let events = try log.read(stream: stream)
                        #expect(events.map(\.position) == model.positions[stream] ?? [], "\(stream)")
                        #expect(events.map(\.version) == (0..<events.count).map { UInt64($0 + 1) }, "\(stream)")
                        #expect(try log.version(of: stream) == model.version(of: stream))
                    }
                }
                // Every kind of outcome came up.
                #expect(outcomes.appended > 20 && outcomes.refused > 20 && outcomes.retries > 0, "\(outcomes)")
            }
        }
    }
}

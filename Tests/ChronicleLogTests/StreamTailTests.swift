import ChronicleTestSupport
@testable import ChronicleLog
import Testing

/// The stream index's in-memory tail (a flat array of chained slots), checked against a plain
/// list of (stream, position, version) through random adds, truncations and moves of the base,
/// as the writer, its transactions that fail and other processes' checkpoints make them.
struct StreamTailTests {
    /// What the tail should hold: every event in `(base, covered]`, in position order.
    struct Model {
        var base: UInt64
        var events: [(stream: String, entry: StreamEntry)] = []
        var covered: UInt64 { base + UInt64(events.count) }

        func entries(of stream: String, through head: UInt64) -> [StreamEntry] {
            events.filter { $0.stream == stream && $0.entry.position <= head }.map(\.entry)
        }
    }

    static let streams = ["todo-b", "todo-a", "user-é", "u", "todo-ab", "tag-1", "tag-10", "a", "ä", "z"]

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func aTailAnswersAsTheListOfItsEventsWould(seed: UInt64) throws {
        var random = TestSeed.generator(for: "StreamTailTests.lane\(seed)")
        var tail = StreamTail(base: 5), model = Model(base: 5)
        var versions: [String: UInt64] = [:]
        func next(_ stream: String) -> UInt64 {
            versions[stream, default: 0] += 1
            return versions[stream]!
        }
        for _ in 0..<300 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                let stream = Self.streams.randomElement(using: &random)!
                let entry = StreamEntry(position: model.covered + 1, version: next(stream))
                tail.add(stream: StreamName(stream), position: entry.position, version: entry.version)
                model.events.append((stream, entry))
            case 6..<9:
                // A write transaction that did not commit: what it added is dropped again (any
                // position within the tail will do).
                for _ in 0..<Int.random(in: 0...12, using: &random) {
                    let stream = Self.streams.randomElement(using: &random)!
                    let entry = StreamEntry(position: model.covered + 1, version: next(stream))
                    tail.add(stream: StreamName(stream), position: entry.position, version: entry.version)
                    model.events.append((stream, entry))
                }
                let kept = UInt64.random(in: model.base...model.covered, using: &random)
                tail.truncate(to: kept)
                model.events.removeLast(Int(model.covered - kept))
            default:
                // Another process moved the checkpoint.
                let checkpoint = UInt64.random(in: model.base...model.covered, using: &random)
                tail.advanceBase(to: checkpoint)
                model.events.removeFirst(Int(checkpoint - model.base))
                model.base = checkpoint
            }
            try Self.expect(tail, matches: model, &random)
        }
    }

    static func expect(_ tail: StreamTail, matches model: Model, _ random: inout SeededGenerator) throws {
        #expect(tail.base == model.base)
        #expect(tail.covered == model.covered)
        let head = UInt64.random(in: model.base...model.covered, using: &random)
        for stream in streams {
            for through in [head, model.covered] {
                let expected = model.entries(of: stream, through: through)
                #expect(tail.entries(of: stream, through: through) == expected, "\(stream) through \(through)")
                #expect(tail.version(of: StreamName(stream), through: through) == expected.last?.version, "\(stream) through \(through)")
            }
        }
        // What a merge through `head` plans, and the entries it writes for each stream.
        var visited: [String] = []
        var entries: [StreamEntry] = []
        tail.forEachStreamLast(through: head) { prefix, last in
            #expect(prefix.last == 0, "a `streams` key prefix ends in a 0 byte")
            let name = String(decoding: prefix.dropLast(), as: UTF8.self)
            visited.append(name)
            tail.entries(endingAt: last, into: &entries)
            #expect(entries == model.entries(of: name, through: head), "\(name) up to \(last)")
        }
        let expected = Set(model.events.filter { $0.entry.position <= head }.map(\.stream))
        #expect(visited.sorted() == expected.sorted())
    }
}

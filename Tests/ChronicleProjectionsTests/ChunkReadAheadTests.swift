import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing

@Suite("the read-ahead hands over every chunk once, in log order, whichever thread decoded it", .timeLimit(.minutes(5)))
struct ChunkReadAheadTests {
    @Test("with no reader of its own, the consumer decodes every chunk itself, up to the head and then nil")
    func consumerAlone() async throws {
        try await Self.withLog(seed: 0x5EED_0019, events: 137) { log, head in
            let source = Self.source(log: log, chunkSize: 10, depth: 2, after: 0, readsAhead: false)
            defer { source.stop() }
            let chunks = try Self.drain(source)
            try Self.expectContiguous(chunks, after: 0, through: head, chunkSize: 10)
            #expect(try source.next() == nil, "the head stays reached")
        }
    }

    @Test("a reader and a consumer that decodes when the reader is behind hand over chunks in order, none twice", arguments: [1, 3, 8])
    func readerAndConsumer(depth: Int) async throws {
        try await Self.withLog(seed: 0x5EED_0020, events: 600) { log, head in
            for _ in 0..<5 {
                let source = Self.source(log: log, chunkSize: 7, depth: depth, after: 0)
                defer { source.stop() }
                try Self.expectContiguous(try Self.drain(source), after: 0, through: head, chunkSize: 7)
            }
        }
    }

    @Test("a restart drops what was read ahead and goes on from the position it names")
    func restart() async throws {
        try await Self.withLog(seed: 0x5EED_0021, events: 200) { log, head in
            let source = Self.source(log: log, chunkSize: 10, depth: 4, after: 0)
            defer { source.stop() }
            for _ in 0..<3 { _ = try source.next() }
            source.restart(after: 15)
            try Self.expectContiguous(try Self.drain(source), after: 15, through: head, chunkSize: 10)
        }
    }

    @Test("a chunk stops at its bytes of event data, and holds one event at least")
    func chunkBytes() async throws {
        try await Self.withLog(seed: 0x5EED_0022, events: 50) { log, head in
            let source = Self.source(log: log, chunkSize: 10, chunkBytes: 1, after: 0, readsAhead: false)
            defer { source.stop() }
            let chunks = try Self.drain(source)
            #expect(chunks.allSatisfy { $0.positions.count == 1 })
            try Self.expectContiguous(chunks, after: 0, through: head, chunkSize: 1)
        }
    }

    /// Runs `body` with a log of at least `events` events (whole commands of a seeded workload) and its head.
    private static func withLog(seed: UInt64, events: UInt64, _ body: (EventLog, UInt64) throws -> Void) async throws {
        try await withStore { store in
            var workload = Workload(test: "ChunkReadAheadTests.\(seed)")
            try await store.append(from: &workload, untilHead: events)
            try body(store.log, try store.log.head())
        }
    }

    /// The positions of a chunk's events, in the order read: what these tests decode chunks into.
    struct Positions: Sendable {
        var positions: [UInt64] = []
        var last: UInt64?
    }

    /// A read-ahead whose chunks are their events' positions.
    private static func source(log: EventLog, chunkSize: Int, chunkBytes: Int = ChunkReadAheadDefaults.chunkBytes,
                               depth: Int = ChunkReadAheadDefaults.depth, after position: UInt64,
                               readsAhead: Bool = true) -> ChunkReadAhead<Positions> {
        ChunkReadAhead(log: log, chunkSize: chunkSize, chunkBytes: chunkBytes, depth: depth, after: position, readsAhead: readsAhead) { stored in
            guard stored.count > 0 else { return nil }
            var chunk = Positions(last: stored.last)
            try stored.forEach { chunk.positions.append($0.position) }
            return chunk
        }
    }

    /// Every chunk up to the first nil.
    private static func drain(_ source: ChunkReadAhead<Positions>) throws -> [Positions] {
        var chunks: [Positions] = []
        while let chunk = try source.next() { chunks.append(chunk) }
        return chunks
    }

    /// The chunks' events are the positions `(after, head]`, each once, in order, at most `chunkSize` a chunk.
    private static func expectContiguous(_ chunks: [Positions], after start: UInt64, through head: UInt64,
                                         chunkSize: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let positions = chunks.flatMap(\.positions)
        let expected = Array(start + 1...head)
        let firstWrong = zip(positions, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(positions.count == expected.count && firstWrong == nil,
                "\(positions.count) events handed over for \(expected.count); first out of place at index \(firstWrong.map(String.init) ?? "none")",
                sourceLocation: sourceLocation)
        #expect(chunks.allSatisfy { !$0.positions.isEmpty && $0.positions.count <= chunkSize }, sourceLocation: sourceLocation)
        #expect(chunks.allSatisfy { $0.last == $0.positions.last }, sourceLocation: sourceLocation)
    }
}

import Dispatch
import ChronicleLog
import Foundation

/// How far a ``ChunkReadAhead`` reads ahead unless told otherwise.
enum ChunkReadAheadDefaults {
    /// How many chunks may be claimed and not yet taken. While a rebuild's
    /// transaction writes its models and commits, the reader fills them and waits; with 4 chunks
    /// (40,000 events) the transaction then waited for the reader on the next chunks. Eight: a
    /// rebuild of 1,000,000 events about 1.07× faster than four; with the consumer decoding too,
    /// 4, 6, 12, 16 and 24 were each slower than 8 (0.92×–0.98×), and each chunk more holds 3 MiB
    /// of the benchmark's events.
    static let depth = 8

    /// The bytes of event data a chunk holds at most: 10,000 events of
    /// the benchmark's data take about 0.8 MB; a log of large memos makes chunks of fewer events.
    /// Two threads decode now, each holding a chunk's records and its decoded events at once: at
    /// 4 MiB, a rebuild of 400 todos with 1 MiB memos peaked at 130–163 MiB, at 2 MiB 121–122.
    static let chunkBytes = 2 << 20
}

/// Reads and decodes the log up to `depth` chunks ahead, on its own queue, for a consumer
/// that waits synchronously: a rebuild's write transaction, which folds many chunks and
/// must stay on the thread that began it. Reading ahead while a large transaction commits
/// keeps the second core busy.
///
/// A consumer that finds its next chunk not decoded yet decodes one itself instead of waiting
/// (when there is room ahead): while a transaction folds, the consumer outruns the reader
/// (decoding an event costs about twice what folding it does), and so both cores decode then.
/// Chunks are claimed in log order, one claim at a time (the log's records read and checked),
/// decoded by whichever thread claimed them, and handed to the consumer in log order.
///
/// What a chunk becomes is the consumer's: `decode` turns its records into what it folds
/// (nil: there were none): for the stored entities, the events as their model reads them.
///
/// Thread rules: one consumer at a time (calls in sequence, as from one serial queue);
/// the reader and the consumer share the state below only while holding `condition`.
final class ChunkReadAhead<Chunk: Sendable>: @unchecked Sendable {
    private let log: EventLog
    private let decode: @Sendable (StoredRecords) throws -> Chunk?
    /// The most events a chunk holds.
    let chunkSize: Int
    /// The most bytes of event data a chunk holds (but at least one event): with `depth`, what
    /// bounds the memory read ahead whatever the events' sizes.
    let chunkBytes: Int
    private let depth: Int
    /// Whether a reader of its own reads ahead (without one, the consumer decodes every chunk).
    private let readsAhead: Bool
    private let queue = DispatchQueue(label: "chronicle.rebuild.read")
    private let condition = NSCondition()
    /// Chunks decoded and not yet taken, by their number in claim order; a nil batch marks the
    /// log's head.
    private var decoded: [Int: Result<Chunk?, any Error>] = [:]
    /// The number the next claimed chunk gets.
    private var nextClaim = 0
    /// The number of the chunk ``next()`` returns next.
    private var nextTaken = 0
    /// Where the next claim reads from.
    private var position: UInt64
    /// A claim is reading its records (claims read one at a time, in log order).
    private var claiming = false
    /// More chunks may be claimed (not after the head, an error, or ``stop()``).
    private var reading = false
    /// Bumped by ``restart(after:)`` and ``stop()``: a claim of an older generation is dropped.
    private var generation = 0


    /// Starts reading chunks of `chunkSize` events (and `chunkBytes` of their data) after
    /// `position`. `readsAhead`: false leaves every chunk to the consumer (for tests).
    init(log: EventLog, chunkSize: Int, chunkBytes: Int = ChunkReadAheadDefaults.chunkBytes,
         depth: Int = ChunkReadAheadDefaults.depth, after position: UInt64, readsAhead: Bool = true,
         decode: @escaping @Sendable (StoredRecords) throws -> Chunk?) {
        self.log = log
        self.decode = decode
        self.chunkSize = chunkSize
        self.chunkBytes = max(1, chunkBytes)
        self.depth = max(1, depth)
        self.readsAhead = readsAhead
        self.position = position
        restart(after: position)
    }

    /// The next chunk, decoding it (or a later one) here rather than waiting when the reader is
    /// behind; nil once the log's head is reached (and from then on, until ``restart(after:)``).
    func next() throws -> Chunk? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result = decoded.removeValue(forKey: nextTaken) {
                nextTaken += 1
                condition.broadcast()
                return try result.get()
            }
            if !reading && nextClaim == nextTaken { return nil }
            if canClaim {
                let current = generation
                condition.unlock()
                claimAndDecode(generation: current)
                condition.lock()
            } else {
                condition.wait()
            }
        }
    }

    /// Drops whatever was read ahead and starts again after `position`.
    func restart(after position: UInt64) {
        condition.lock()
        generation += 1
        let current = generation
        decoded = [:]
        nextClaim = 0
        nextTaken = 0
        claiming = false
        self.position = position
        reading = true
        condition.broadcast()
        condition.unlock()
        if readsAhead { queue.async { [self] in read(generation: current) } }
    }

    /// Stops the reader after the chunk it is reading. Call it when done: a reader waiting
    /// for room in the buffer keeps the object alive.
    func stop() {
        condition.lock()
        generation += 1
        reading = false
        decoded = [:]
        condition.broadcast()
        condition.unlock()
    }

    // MARK: - Claims

    /// Whether a chunk may be claimed now: more to read, no claim reading, and room ahead.
    /// Call it holding `condition`.
    private var canClaim: Bool {
        reading && !claiming && nextClaim - nextTaken < depth
    }

    private func read(generation mine: Int) {
        while true {
            condition.lock()
            while !canClaim && generation == mine && reading { condition.wait() }
            let stillMine = generation == mine && reading
            condition.unlock()
            guard stillMine, claimAndDecode(generation: mine) else { return }
        }
    }

    /// Claims the next chunk (reading its records), decodes it and hands it over, when one may
    /// be claimed; false once `mine` is an older generation.
    @discardableResult
    private func claimAndDecode(generation mine: Int) -> Bool {
        condition.lock()
        guard generation == mine else {
            condition.unlock()
            return false
        }
        guard canClaim else {   // the other thread claimed first
            condition.unlock()
            return true
        }
        claiming = true
        let number = nextClaim, from = position
        nextClaim += 1
        condition.unlock()

        let records = Result { try log.readStored(after: from, limit: chunkSize, maxBytes: chunkBytes) }

        condition.lock()
        if generation == mine {
            claiming = false
            switch records {
            case .success(let stored):
                if let last = stored.last { position = last } else { reading = false }   // the head
            case .failure:
                reading = false   // nothing after an error is claimed
            }
            condition.broadcast()
        }
        condition.unlock()

        let result = Result { () throws -> Chunk? in try decode(try records.get()) }

        condition.lock()
        defer { condition.unlock() }
        guard generation == mine else { return false }
        if case .failure = result { reading = false }
        decoded[number] = result
        condition.broadcast()
        return true
    }
}

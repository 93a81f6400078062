import Dispatch
import EventLog
import Foundation

/// Reads and decodes the log up to `depth` chunks ahead, on its own queue, for a consumer
/// that waits synchronously: a rebuild's write transaction, which folds many chunks and
/// must stay on the thread that began it. Reading ahead while a large transaction commits
/// keeps the second core busy.
///
/// Thread rules: one consumer at a time (calls in sequence, as from one serial queue);
/// the reader and the consumer share `buffer`, `position`, `reading` and `generation`
/// only while holding `condition`.
final class LogReadAhead: @unchecked Sendable {
    private let log: EventLog
    /// Rank lookups in the log read.
    var ranks: MergeRanks { MergeRanks(log: log) }
    /// The most events a chunk holds.
    let chunkSize: Int
    /// The most bytes of event data a chunk holds (but at least one event): with `depth`, what
    /// bounds the memory read ahead whatever the events' sizes.
    let chunkBytes: Int
    private let depth: Int
    private let queue = DispatchQueue(label: "chronicle.rebuild.read")
    private let condition = NSCondition()
    /// Chunks read and not yet taken, oldest first; a nil batch marks the log's head.
    private var buffer: [Result<LogPrefetcher.Batch?, any Error>] = []
    /// Where the reader goes on from.
    private var position: UInt64
    /// The reader is running (it stops at the head or at an error).
    private var reading = false
    /// Bumped by ``restart(after:)`` and ``stop()``: a reader of an older generation quits.
    private var generation = 0

    /// How many chunks the reader reads ahead unless told otherwise. While a rebuild's
    /// transaction writes its models and commits, the reader fills the buffer and waits; with
    /// 4 chunks (40,000 events) the transaction then waited for the reader on the next chunks.
    /// Eight: a rebuild of 1,000,000 events about 1.07× faster (8 of 8 runs), 8 MiB more; 12 and
    /// 16 were no faster, and hold 3 MiB more each 10,000 events.
    static let defaultDepth = 8

    /// The bytes of event data a chunk holds at most unless told otherwise: 10,000 events of
    /// the benchmark's data take about 0.8 MB; a log of large memos makes chunks of fewer events.
    static let defaultChunkBytes = 4 << 20

    /// Starts reading chunks of `chunkSize` events (and `chunkBytes` of their data) after `position`.
    init(log: EventLog, chunkSize: Int, chunkBytes: Int = defaultChunkBytes, depth: Int = defaultDepth, after position: UInt64) {
        self.log = log
        self.chunkSize = chunkSize
        self.chunkBytes = max(1, chunkBytes)
        self.depth = depth
        self.position = position
        restart(after: position)
    }

    /// The next chunk, waiting for it if needed; nil once the log's head is reached (and
    /// from then on, until ``restart(after:)``).
    func next() throws -> LogPrefetcher.Batch? {
        condition.lock()
        defer { condition.unlock() }
        while buffer.isEmpty && reading { condition.wait() }
        guard !buffer.isEmpty else { return nil }
        let result = buffer.removeFirst()
        condition.broadcast()
        return try result.get()
    }

    /// Drops whatever was read ahead and starts again after `position`.
    func restart(after position: UInt64) {
        condition.lock()
        generation += 1
        let current = generation
        buffer = []
        self.position = position
        reading = true
        condition.broadcast()
        condition.unlock()
        queue.async { [self] in read(generation: current) }
    }

    /// Stops the reader after the chunk it is reading. Call it when done: a reader waiting
    /// for room in the buffer keeps the object alive.
    func stop() {
        condition.lock()
        generation += 1
        reading = false
        buffer = []
        condition.broadcast()
        condition.unlock()
    }

    private func read(generation mine: Int) {
        while true {
            condition.lock()
            while buffer.count >= depth && generation == mine { condition.wait() }
            guard generation == mine else { return condition.unlock() }
            let from = position
            condition.unlock()

            let result = Result { try LogPrefetcher.read(log, after: from, limit: chunkSize, maxBytes: chunkBytes) }

            condition.lock()
            defer { condition.unlock() }
            guard generation == mine else { return }
            buffer.append(result)
            condition.broadcast()
            guard case .success(let batch?) = result else {
                reading = false
                return
            }
            position = batch.last
        }
    }
}

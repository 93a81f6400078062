import Dispatch
import ChronicleLog
/// Reads and decodes the next batch of the log on its own queue while the previous
/// batch is being written, so decoding overlaps LMDB writes and their fsync.
struct LogPrefetcher: Sendable {
    /// One batch, decoded; the raw records are already released.
    struct Batch: Sendable {
        var events: DecodedEvents
        var last: UInt64
        var count: Int
        /// The bytes of the events' data: about what their decoded strings hold.
        var bytes: Int
        /// The log's head when the batch was read.
        var head: UInt64
    }

    let log: EventLog
    let batchSize: Int
    /// The most bytes of event data a batch holds (one event at least).
    let batchBytes: Int
    private let queue = DispatchQueue(label: "chronicle.projections.read")

    init(log: EventLog, batchSize: Int, batchBytes: Int = EventLog.defaultBatchBytes) {
        self.log = log
        self.batchSize = batchSize
        self.batchBytes = max(1, batchBytes)
    }

    /// Starts reading up to `batchSize` events and `batchBytes` of their data after `position`
    /// (and at most through `end`); the task's value is nil when there are none.
    func batch(after position: UInt64, through end: UInt64 = .max) -> Task<Batch?, any Error> {
        let log = log, queue = queue, maxBytes = batchBytes
        let limit = Int(min(UInt64(batchSize), end > position ? end - position : 0))
        return Task {
            guard limit > 0 else { return nil }
            return try await queue.perform { try Self.read(log, after: position, limit: limit, maxBytes: maxBytes) }
        }
    }

    /// Reads and decodes up to `limit` events, and up to `maxBytes` bytes of their data (at least
    /// one event), after `position`; nil when there are none.
    static func read(_ log: EventLog, after position: UInt64, limit: Int, maxBytes: Int = .max) throws -> Batch? {
        try decode(try log.readStored(after: position, limit: limit, maxBytes: maxBytes), of: log)
    }

    /// Decodes `stored` (consecutive events of `log`) as one batch; nil when there are none.
    static func decode(_ stored: StoredRecords, of log: EventLog) throws -> Batch? {
        let records = try ReadRecord.records(stored, of: log)
        guard let last = records.last?.position else { return nil }
        let bytes = records.reduce(0) { $0 + $1.dataBytes }
        return Batch(events: try MergeDecoder(log: log).decode(records), last: last, count: records.count, bytes: bytes,
                     head: try log.head())
    }
}

import Foundation

/// Every event after a position, then each new event as it is appended (catch-up, then live).
///
/// ```swift
/// for try await event in log.subscribe(after: checkpoint) {
///     apply(event)
/// }
/// ```
/// Events arrive in position order, each once. The sequence reads the log in small
/// batches (it never loads the whole log, nor more than ``EventLog/defaultBatchBytes`` of
/// event data at once) and ends only when its task is cancelled.
/// It also sees appends made by other processes, within ``EventLog/Options/pollInterval``.
public struct LogTail: AsyncSequence, Sendable {
    public typealias Element = RecordedEvent
    let log: EventLog
    let start: UInt64
    let batchSize: Int

    public func makeAsyncIterator() -> Iterator {
        Iterator(log: log, position: start, batchSize: batchSize)
    }

    /// Hands out the events of ``LogBatchTail`` one at a time: the catch-up and waiting
    /// logic lives there only.
    public struct Iterator: AsyncIteratorProtocol {
        var batches: LogBatchTail.Iterator
        var buffer: [RecordedEvent] = []
        var index = 0

        init(log: EventLog, position: UInt64, batchSize: Int) {
            batches = LogBatchTail.Iterator(log: log, position: position, batchSize: batchSize, maxBytes: EventLog.defaultBatchBytes)
        }

        public mutating func next() async throws -> RecordedEvent? {
            while index == buffer.count {
                guard let batch = try await batches.next() else { return nil }
                buffer = batch
                index = 0
            }
            defer { index += 1 }
            return buffer[index]
        }
    }
}

/// The same as ``LogTail``, delivered in batches (what sync consumes).
public struct LogBatchTail: AsyncSequence, Sendable {
    public typealias Element = [RecordedEvent]
    let log: EventLog
    let start: UInt64
    let batchSize: Int
    let maxBytes: Int

    public func makeAsyncIterator() -> Iterator {
        Iterator(log: log, position: start, batchSize: batchSize, maxBytes: maxBytes)
    }

    /// Reads the log a batch at a time from the tail's start, waiting for appends once it has caught up;
    /// returns nil when its task is cancelled.
    public struct Iterator: AsyncIteratorProtocol {
        let log: EventLog
        var position: UInt64
        let batchSize: Int
        let maxBytes: Int

        public mutating func next() async throws -> [RecordedEvent]? {
            while true {
                if Task.isCancelled { return nil }
                let generation = log.headSignal.generation
                let batch = try log.read(after: position, limit: batchSize, maxBytes: maxBytes)
                if let last = batch.last {
                    position = last.position
                    return batch
                }
                await log.headSignal.wait(after: generation, timeout: log.options.pollInterval)
            }
        }
    }
}

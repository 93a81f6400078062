import ChronicleLog
import Foundation
import ChronicleProjections

extension ChronicleStore {
    /// The log's last position (0 for an empty store): every event ever appended, pulled
    /// or imported, by any process, is at or below it.
    public func head() throws -> UInt64 {
        try requireOpen()
        return try ChronicleError.mapping { try log.head() }
    }

    /// The position of this store's latest command (0 before the first): wait for read
    /// models to include it with ``waitForModels(through:)``.
    ///
    /// Concurrent tasks share it; a task that needs the position of its own write wraps the
    /// command in ``write(_:)``, which returns it.
    public var lastWrittenPosition: UInt64 {
        lastAppended.withLock { $0 }
    }

    /// Waits until the stored entities include every event up to `position` (a position a
    /// command wrote, or ``head()``). Reads through the store already include the store's own
    /// writes; this is for code that reads ``changes()`` or waits on another process's append.
    /// Cancel the calling task to give up.
    public func waitForModels(through position: UInt64) async throws {
        try requireOpen()
        try ChronicleError.mapping {
            let head = try log.head()
            guard position <= head else { throw ProjectionError.beyondHead(position: position, head: head) }
            _ = try caughtUpEntityStates()
        }
    }

    /// The audit log: events in log order after `position`, at most `limit` of them, as
    /// stored (each with its id, stream, version, type, timestamp, origin and data).
    ///
    /// ```swift
    /// var after: UInt64 = 0
    /// while case let page = try store.events(after: after), let last = page.last {
    ///     for event in page { print(event.position, event.type, event.stream) }
    ///     after = last.position
    /// }
    /// ```
    public func events(after position: UInt64 = 0, limit: Int = 1000) throws -> [RecordedEvent] {
        try requireOpen()
        return try ChronicleError.mapping { try log.read(after: position, limit: limit) }
    }

    /// Every event of one entity's stream (`user-…`, `todo-…`, `tag-…`), by version: its history.
    public func events(inStream stream: String) throws -> [RecordedEvent] {
        try requireOpen()
        return try ChronicleError.mapping { try log.read(stream: stream) }
    }

    /// The users, todos and stats as they stood at `position`, folded from the log alone
    /// (the stored models are not read): what an auditor compares with what the app showed.
    /// - throws: ``ChronicleError/beyondHead(position:head:)`` past the log's end.
    public func replay(until position: UInt64) throws -> ReplayResult {
        try requireOpen()
        return try ChronicleError.mapping { try Replay.result(log: log, until: position) }
    }

    /// Rebuilds the stored entities from the log into a second set of tables and swaps them
    /// in atomically (blue/green); reads go on from the old ones until then, and appends never
    /// wait.
    ///
    /// ```swift
    /// let summary = try await store.rebuild { progress in print(progress.done, "of", progress.total) }
    /// ```
    @discardableResult
    public func rebuild(progress: @escaping @Sendable (RebuildProgress) -> Void = { _ in }) async throws -> RebuildSummary {
        try requireOpen()
        let states = entityStates
        let started = ContinuousClock.now
        let head = try ChronicleError.mapping { try log.head() }
        // Seconds of LMDB work for a large log: off Swift's cooperative threads.
        let position = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                do {
                    continuation.resume(returning: try ChronicleError.mapping {
                        try states.rebuild { position in progress(RebuildProgress(done: position, total: max(head, position), since: started)) }
                    })
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        let done = RebuildProgress(done: position, total: position, since: started)
        return try ChronicleError.mapping {
            RebuildSummary(position: position, eventsRead: position, skippedEvents: UInt64(try states.unread().count),
                           elapsed: done.elapsed, eventsPerSecond: done.eventsPerSecond)
        }
    }

    /// Reads every record of the log and checks it (checksums, order, stream versions):
    /// what `chronicle verify` reports.
    public func verify() throws -> VerifyReport {
        try requireOpen()
        return try ChronicleError.mapping { try log.verify() }
    }
}

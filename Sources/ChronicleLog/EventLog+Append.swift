import Foundation

extension EventLog {
    /// Appends one atomic batch, which may touch several streams.
    ///
    /// Every append's expected version must hold, or the whole batch is refused with
    /// ``EventLogError/conflict(stream:expected:actual:)`` and nothing is written. An append to
    /// a stream the batch appended to before is judged after those appends, as if they had
    /// been written: `[x: .exact(3), 2 events]` then `[x: .exact(5), …]` holds on a stream at 3. Event ids
    /// already stored are not written again: a batch made only of stored ids returns their
    /// original positions (a safe retry). Returns once the batch is durable on disk.
    ///
    /// `keys` carries what the decision read beyond the streams it writes, and the unique
    /// keys it claims or releases (see ``AppendKey``): a failed key condition refuses the
    /// batch with ``EventLogError/keyConflict(key:reason:)``. A retry of stored ids skips them.
    ///
    /// `note` is stored with the batch, in its transaction, when it appends at least one event
    /// (see ``notes(after:)``): what the appender wants to remember about it (the store's undo
    /// history says which command it was). Notes are this log's own: never synced, outside the
    /// hash chain.
    @discardableResult
    public func append(_ batch: [StreamAppend], keys: [AppendKey] = [], note: [UInt8]? = nil) async throws -> AppendResult {
        guard batch.contains(where: { !$0.events.isEmpty }) else {
            throw EventLogError.invalidEvent("an append needs at least one event")
        }
        try KeyConditions.validate(keys)
        return try await withCheckedThrowingContinuation { continuation in
            writer.submit(.append(batch, keys, note, continuation))
        }
    }

    /// Appends `events` to one stream. See ``append(_:)``.
    @discardableResult
    public func append(to stream: String, expected: ExpectedVersion = .any, events: [NewEvent]) async throws -> AppendResult {
        try await append([StreamAppend(stream: stream, expected: expected, events: events)])
    }

    /// Stores events created by other replicas, keeping their ids, versions, timestamps and
    /// origins, each id once (a sync server's push, a client's pull). All or nothing: one
    /// invalid event refuses the batch.
    ///
    /// `keys` are the effects of these events on the log's keys, applied in the same
    /// transaction when at least one event is new. The events were decided elsewhere, so no
    /// key refuses them: touches are recorded, a claim is taken only while its key is free
    /// (or already the owner's), a release frees only the owner's key, conditions are ignored.
    public func ingest(_ events: [ForeignEvent], keys: [AppendKey] = []) async throws -> IngestResult {
        if events.isEmpty { return IngestResult(accepted: 0, duplicates: 0, head: try head()) }
        try KeyConditions.validate(keys)
        return try await withCheckedThrowingContinuation { continuation in
            writer.submit(.ingest(events, keys, continuation))
        }
    }
}

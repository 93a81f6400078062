import ChronicleLog
import Foundation

extension ChronicleStore {
    /// Stores events exported from a store (`chronicle export`), all or nothing, each id once:
    /// events already here are skipped, so importing a file twice stores nothing the second
    /// time. Each event is checked as a server checks a pushed one (shape, sizes) and keeps its
    /// id, stream, version, timestamp, origin and data; the whole file commits in one
    /// transaction, or nothing does.
    ///
    /// Imported events take part in the store's decisions and read models like pulled ones (a
    /// tag takes its name here), and merge by the same rules. Events of another origin are not
    /// pushed from this store: their device pushes them.
    ///
    /// ```swift
    /// let result = try await store.importEvents(events)
    /// print("\(result.accepted) new, \(result.duplicates) already here")
    /// ```
    /// - throws: ``ChronicleError/invalidInput(_:)`` for an event the log refuses (nothing is stored).
    @discardableResult
    public func importEvents(_ events: [ForeignEvent]) async throws -> IngestResult {
        try requireOpen()
        return try await ChronicleError.mapping {
            let recorded = events.map { $0.recorded(at: $0.upstreamPosition ?? 0) }
            let keys = try pulledKeys(recorded)
            return try await log.ingest(events, keys: keys)
        }
    }
}

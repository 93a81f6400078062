import ChronicleSync
import ChronicleTodoModel
import Foundation
import Logging
import ChronicleProjections

extension ChronicleStore {
    /// A sync engine for this store: it pushes the store's events to `configuration.remote`
    /// and pulls everyone's. Pulled events take part in the store's decisions as its own do:
    /// a pulled tag's name is taken here too, so a local `createTag` with that name is refused.
    ///
    /// ```swift
    /// let engine = try store.syncEngine(SyncConfiguration(remote: url, token: token))
    /// _ = try await engine.push()
    /// _ = try await engine.pull()
    /// ```
    /// `logger` receives the engine's tries, failures and backoffs; it writes nothing by default.
    /// - throws: ``ChronicleError/sync(_:)`` with `SyncError.invalidRemote(_:)` or `SyncError.storage(_:)` (see `SyncEngine`).
    public func syncEngine(_ configuration: SyncConfiguration, logger: Logger = SyncEngine.quietLogger) throws -> SyncEngine {
        try requireOpen()
        return try ChronicleError.mapping {
            try SyncEngine(log: log, configuration: configuration, logger: logger, pulledKeys: { [self] events in
                try pulledKeys(events)
            })
        }
    }
}

extension ChronicleStore {
    /// Pushes this store's unsent events to `configuration.remote`, retrying by its rules.
    ///
    /// ```swift
    /// let pushed = try await store.push(SyncConfiguration(remote: url, token: token))
    /// pushed.outcome   // .complete when the server has everything
    /// ```
    @discardableResult
    public func push(_ configuration: SyncConfiguration) async throws -> PushSummary {
        let engine = try syncEngine(configuration)
        return try await ChronicleError.mapping { try await engine.push() }
    }

    /// Pulls every event the server has after this store's cursor and merges it: reads made
    /// after it returns show the merged state (see ``conflicts()`` for what it overruled).
    ///
    /// ```swift
    /// let pulled = try await store.pull(SyncConfiguration(remote: url, token: token))
    /// print(pulled.stored, "new events")
    /// ```
    @discardableResult
    public func pull(_ configuration: SyncConfiguration) async throws -> PullSummary {
        let engine = try syncEngine(configuration)
        return try await ChronicleError.mapping { try await engine.pull() }
    }

    /// Syncs in the background until the task is cancelled: pushes as events are written, and
    /// pulls as the server commits other devices' events (a pull waiting on the server,
    /// `configuration.pullWait`) or, from a server that does not wait, by
    /// `configuration.pullInterval`, backing off after failures (see `SyncEngine.run(stopOnPermanentError:)`).
    ///
    /// ```swift
    /// let sync = Task { try await store.runSync(SyncConfiguration(remote: url, token: token, pullInterval: .seconds(30))) }
    /// …
    /// sync.cancel()
    /// ```
    /// `logger` receives the engine's tries, failures and backoffs; it writes nothing by default.
    /// - throws: ``ChronicleError/sync(_:)`` when the configuration is unusable, or after a
    ///   permanent failure with `stopOnPermanentError`; cancellation ends it normally.
    public func runSync(_ configuration: SyncConfiguration, logger: Logger = SyncEngine.quietLogger,
                        stopOnPermanentError: Bool = false) async throws {
        let engine = try syncEngine(configuration, logger: logger)
        try await ChronicleError.mapping { try await engine.run(stopOnPermanentError: stopOnPermanentError) }
    }

    /// Where sync stands: pending events, the acknowledged and pulled positions, failures.
    public func syncStatus() throws -> SyncStatus {
        try requireOpen()
        return try ChronicleError.mapping { try SyncEngine.status(of: log) }
    }

    /// What merges overruled of this store's writes: entities shown under a changed unique
    /// value (a tag as `Work (2)`, the same on every device), then writes lost to other
    /// devices' (see `MergeConflict`). Never an error; every event stays in the log.
    ///
    /// ```swift
    /// for conflict in try await store.conflicts() { print(conflict.stream, conflict.kind, conflict.detail) }
    /// ```
    public func conflicts() async throws -> [MergeConflict] {
        try requireOpen()
        return try ChronicleError.mapping { try caughtUpEntityStates().mergeConflicts() }
    }
}

import ChronicleSync
import Foundation

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
    /// - throws: ``SyncError/invalidRemote(_:)`` or ``SyncError/storage(_:)`` (see ``SyncEngine``).
    public func syncEngine(_ configuration: SyncConfiguration) throws -> SyncEngine {
        let (log, loader) = (self.log, self.loader)
        return try SyncEngine(log: log, configuration: configuration, pulledKeys: { events in
            try ConsistencyKeys.effects(ofPulled: events, log: log, loader: loader)
        })
    }
}

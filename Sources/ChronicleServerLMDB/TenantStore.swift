import ChronicleLog
import Foundation
import ChronicleServer
/// The open event logs, one per tenant, under `<data>/tenants/<tenant>/`, opened on first use.
///
/// Each tenant's log is a Chronicle store of its own: the server ingests pushed events into
/// it as they are (ids, versions, timestamps, origins kept) and deduplicates by id.
public actor TenantStore {
    /// `<data>/tenants`.
    public nonisolated let directory: String
    private let options: EventLog.Options
    private var logs: [String: EventLog] = [:]

    /// Makes a store for the logs under `<dataDirectory>/tenants`; nothing is opened or created yet.
    public init(dataDirectory: String, options: EventLog.Options = LMDBEventStorage.defaultLogOptions) {
        self.directory = (dataDirectory as NSString).appendingPathComponent("tenants")
        self.options = options
    }

    /// The log of `tenant`, created when missing.
    public func log(for tenant: String) throws -> EventLog {
        if let log = logs[tenant] { return log }
        guard TokenTable.isValidTenant(tenant) else { throw SyncServerError.invalidTenant(tenant) }
        let log = try EventLog(path: (directory as NSString).appendingPathComponent(tenant), options: options)
        logs[tenant] = log
        return log
    }

    /// Finishes queued writes and closes every log (at shutdown).
    public func closeAll() {
        for log in logs.values { log.close() }
        logs.removeAll()
    }
}

import ChronicleLog
import Foundation
import ChronicleServer
/// The embedded storage: one Chronicle event log per tenant under `<data>/tenants/<tenant>/`
/// (``TenantStore``), the tokens in memory as `serve` was given them. One process owns it.
///
/// ```swift
/// let storage = LMDBEventStorage(dataDirectory: "/var/lib/chronicle")
/// let server = try SyncServer(configuration: .init(port: 8080, tokens: tokens), storage: storage)
/// ```
public final class LMDBEventStorage: EventStorage {
    /// The tenants' event logs, each opened on first use.
    public let tenants: TenantStore
    private let tokens = TokenHolder()
    /// The devices, in files beside the logs (``DeviceFiles``).
    private let deviceFiles: DeviceFiles

    /// How a server opens its tenants' logs by default: as a client does, but merging each log's
    /// stream index every 50,000 events instead of 200,000. A tenant's log stays open for the
    /// server's life, with the events since its last merge indexed in memory, so this bounds what
    /// each tenant writing at once holds to about 10 MB instead of 40.
    public static let defaultLogOptions = EventLog.Options(streamIndexCheckpoint: 50_000)

    /// - parameters:
    ///   - dataDirectory: the server's folder (tenants' logs in `tenants/`).
    ///   - options: how the logs are opened (`noSync` for throwaway servers only).
    public init(dataDirectory: String, options: EventLog.Options = LMDBEventStorage.defaultLogOptions) {
        tenants = TenantStore(dataDirectory: dataDirectory, options: options)
        deviceFiles = DeviceFiles(dataDirectory: dataDirectory)
    }

    public var description: String { (tenants.directory as NSString).deletingLastPathComponent }

    public func prepare(tokens: TokenTable) async throws {
        await self.tokens.set(tokens)
    }

    public func tenant(forToken token: String) async throws -> String? {
        await tokens.table.tenant(for: token)
    }

    public func append(_ events: [ForeignEvent], for tenant: String) async throws -> IngestResult {
        try EventStorageError.refuseNUL(in: events)   // the log would keep them; PostgreSQL cannot
        let log = try await tenants.log(for: tenant)
        do {
            return try await log.ingest(events)
        } catch EventLogError.invalidEvent(let why) {
            throw EventStorageError.invalidEvent(why)
        }
    }

    public func events(of tenant: String, after position: UInt64, limit: Int, maxBytes: Int) async throws -> EventPage {
        let log = try await tenants.log(for: tenant)
        let events = try log.read(after: position, limit: limit, maxBytes: maxBytes)
        return EventPage(events: events, lastPosition: try events.last?.position ?? log.head())
    }

    public func close() async {
        await deviceFiles.flush()
        await tenants.closeAll()
    }

    public func admit(device: String, of tenant: String) async throws -> Bool {
        try await deviceFiles.admit(device: device, of: tenant)
    }

    public func record(device: String, of tenant: String, pushed: UInt64?, pulled: UInt64?) async throws {
        try await deviceFiles.record(device: device, of: tenant, pushed: pushed, pulled: pulled)
    }

    /// The tenants with a log under `<data>/tenants`.
    public func tenantNames() async throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: tenants.directory)) ?? []
        return names.filter(TokenTable.isValidTenant).sorted()
    }

    public func devices(of tenant: String) async throws -> [DeviceRecord] {
        guard TokenTable.isValidTenant(tenant) else { throw SyncServerError.invalidTenant(tenant) }
        return try await deviceFiles.devices(of: tenant)
    }

    public func setRevoked(_ revoked: Bool, device: String, of tenant: String) async throws {
        guard TokenTable.isValidTenant(tenant) else { throw SyncServerError.invalidTenant(tenant) }
        try await deviceFiles.setRevoked(revoked, device: device, of: tenant)
    }

    /// The tokens `prepare` was given.
    private actor TokenHolder {
        var table = TokenTable()
        func set(_ table: TokenTable) { self.table = table }
    }
}

import EventLog
import Foundation

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
        await tenants.closeAll()
    }

    /// The tokens `prepare` was given.
    private actor TokenHolder {
        var table = TokenTable()
        func set(_ table: TokenTable) { self.table = table }
    }
}

import ChronicleLog
import Foundation
import Logging
import PostgresNIO
import ChronicleServer
/// The sync server's storage on PostgreSQL: any number of `serve` processes on one database
/// are one server (SPEC §8).
///
/// ```swift
/// let storage = try PostgresEventStorage(url: "postgres://chronicle@db.internal:5432/chronicle")
/// let server = try SyncServer(configuration: .init(port: 8080, tokens: tokens), storage: storage)
/// ```
///
/// **Gap-free positions across processes.** A tenant's appends are serialized by its row in
/// `chronicle_tenants`, locked `FOR UPDATE` for the whole transaction that assigns the next
/// positions, inserts the events and moves the tenant's head. Position p+1 is therefore only
/// handed out once the transaction holding p has committed, so a reader polling by position
/// never sees p+1 before p (a sequence would leave gaps on rollback, and two transactions
/// could commit out of order). Tenants never wait for each other: each has its own row.
/// `(tenant, id)` is unique: an event id is stored once per tenant whichever process
/// receives it, and a re-sent batch stores nothing.
///
/// **Waking waiting pulls across servers.** A push that stored events notifies
/// `chronicle_events` with the tenant's name in its transaction (delivered at commit), and
/// each server listens on one connection of its own (``PostgresCommitListener``) to wake its
/// pulls of that tenant. Notifications are hints: a pull reads again when its wait ends, so
/// with `notifications: false` (no `NOTIFY`, no `LISTEN`) every event still arrives, within
/// the wait.
///
/// Besides `pg_notify` and `LISTEN`, only row locks, unique constraints and plain SQL are used
/// (no advisory locks, no sequences), the subset that CockroachDB and YugabyteDB also run. Under
/// serializable or snapshot isolation (their defaults) an append the database refuses as a
/// serialization failure is run again, as those databases require of their clients.
///
/// The payload is kept as `text`, its bytes exactly as received (the wire parser has checked
/// they are one JSON object in UTF-8; the database must be `UTF8`, which ``prepare(tokens:)``
/// checks): a NUL in it stays the escape `\u0000`. A type or origin holding NUL, which `text`
/// cannot, is refused as every storage refuses it (``EventStorageError/refuseNUL(in:)``). A database that cannot be reached makes every call throw
/// ``EventStorageError/unavailable(_:)`` (the API answers 503 with `Retry-After`); the pool
/// connects again when it comes back.
public final class PostgresEventStorage: EventStorage {
    /// The database the storage connects to.
    public let location: DatabaseLocation
    let client: PostgresClient
    private let running: Task<Void, Never>
    let logger: Logger
    private let connection: PostgresConnection.Configuration
    /// Whether pushes notify and the storage listens (see ``init(location:operationTimeout:notifications:logger:)``).
    public let notifications: Bool
    private let listener = PostgresCommitListener()

    public var description: String { location.description }

    /// Connects (lazily) to the database `url` names: `postgres://user[:password]@host[:port]/database`.
    /// - throws: ``DatabaseLocation/Error`` for a URL that is not one.
    public convenience init(url: String, operationTimeout: Duration = .seconds(10), notifications: Bool = true,
                            logger: Logger = Logger(label: "chronicle.postgres")) throws {
        try self.init(location: DatabaseLocation(url: url), operationTimeout: operationTimeout, notifications: notifications,
                      logger: logger)
    }

    /// - parameters:
    ///   - operationTimeout: how long one call may wait for the database before it counts as
    ///     unavailable (the pool would otherwise keep a request waiting while it retries connecting).
    ///   - notifications: whether a push notifies the other servers' waiting pulls as it commits
    ///     (`NOTIFY`) and this server listens (`LISTEN`). Without them, a waiting pull still
    ///     receives every event, when its wait ends (for databases without `LISTEN`, and tests).
    public init(location: DatabaseLocation, operationTimeout: Duration = .seconds(10), notifications: Bool = true,
                logger: Logger = Logger(label: "chronicle.postgres")) {
        self.location = location
        self.operationTimeout = operationTimeout
        self.notifications = notifications
        self.logger = logger
        var configuration = PostgresClient.Configuration(host: location.host, port: location.port, username: location.user,
                                                         password: location.password, database: location.database, tls: .disable)
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.maximumConnections = 16
        var connection = PostgresConnection.Configuration(host: location.host, port: location.port, username: location.user,
                                                          password: location.password, database: location.database, tls: .disable)
        connection.options.connectTimeout = .seconds(3)
        self.connection = connection
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        running = Task { await client.run() }
    }

    public func prepare(tokens: TokenTable) async throws {
        try await available { [client, logger] in
            try await PostgresSchema.migrate(client, logger: logger)
            for (digest, tenant) in tokens.digests {
                let hex = TokenTable.hex(digest)
                try await client.withTransaction(logger: logger) { connection in
                    try await connection.query("INSERT INTO chronicle_tenants (tenant, head) VALUES (\(tenant), 0) ON CONFLICT (tenant) DO NOTHING",
                                               logger: logger)
                    try await connection.query("""
                        INSERT INTO chronicle_tokens (digest, tenant) VALUES (\(hex), \(tenant))
                        ON CONFLICT (digest) DO UPDATE SET tenant = excluded.tenant
                        """, logger: logger)
                }
            }
        }
    }

    public func tenant(forToken token: String) async throws -> String? {
        try await available { [client, logger] in
            let hex = TokenTable.hex(TokenTable.digest(token))
            let rows = try await client.query("SELECT tenant FROM chronicle_tokens WHERE digest = \(hex)", logger: logger)
            for try await tenant in rows.decode(String.self) { return tenant }
            return nil
        }
    }

    public func append(_ events: [ForeignEvent], for tenant: String) async throws -> IngestResult {
        for event in events {
            do {
                try EventValidation.check(stream: event.stream)
                try EventValidation.check(type: event.type, data: event.data)
                try EventValidation.check(schemaVersion: event.schemaVersion)
                try EventValidation.check(origin: event.origin)
            } catch {
                throw EventStorageError.invalidEvent(error.description)
            }
            guard event.version > 0 else { throw EventStorageError.invalidEvent("version must be at least 1 (event \(event.id))") }
        }
        try EventStorageError.refuseNUL(in: events)   // `text` cannot hold it: refused as a bad event, not a failed statement
        return try await available { [client, logger, notifications] in
            // Under serializable or snapshot isolation (CockroachDB's and YugabyteDB's defaults,
            // or a PostgreSQL configured so), a transaction that finds the tenant's row changed
            // since it began is refused with a serialization failure and must be run again: it
            // stored nothing.
            var attempt = 1
            while true {
                let started = ContinuousClock.now
                do {
                    return try await client.withTransaction(logger: logger) { connection in
                        try await PostgresAppend(connection: connection, notifies: notifications, logger: logger)
                            .append(events, for: tenant)
                    }
                } catch where Self.isTransient(error) {
                    guard attempt < Self.transientAttempts else {
                        throw EventStorageError.unavailable("the database refused the append \(attempt) times (serialization failure or deadlock)")
                    }
                    try await Task.sleep(for: Self.pause(afterAttempt: attempt, took: ContinuousClock.now - started))
                    attempt += 1
                }
            }
        }
    }

    /// How often an append refused by a serialization failure or a deadlock is tried, within
    /// the operation timeout (which usually ends it first).
    static let transientAttempts = 100

    /// A random pause (full jitter, so that appends refused together do not collide again)
    /// below the refused attempt's own duration times 2, 4, … 32, capped at 1 s. Scaled by the
    /// attempt's duration: on a loaded machine an append takes long, and pauses of a few
    /// milliseconds would only bring the same writers back into the same conflict.
    static func pause(afterAttempt attempt: Int, took: Duration) -> Duration {
        let bound = min(.seconds(1), max(.milliseconds(1), took) * (1 << min(attempt, 5)))
        let (seconds, attoseconds) = bound.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        return .nanoseconds(Int64.random(in: 0...max(1, nanoseconds)))
    }

    /// SQLSTATE 40001 (serialization failure) and 40P01 (deadlock detected), from a statement
    /// or the commit: the transaction was rolled back and may simply be run again.
    static func isTransient(_ error: any Error) -> Bool {
        if let failed = error as? PostgresTransactionError {
            return [failed.closureError, failed.commitError].contains { $0.map(isTransient) ?? false }
        }
        guard let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    public func events(of tenant: String, after position: UInt64, limit: Int, maxBytes: Int) async throws -> EventPage {
        try await available { [client, logger] in
            let rows = try await client.query(PostgresStatements.page(of: tenant, after: position, limit: limit, maxBytes: maxBytes),
                                              logger: logger)
            var events: [RecordedEvent] = []
            for try await (position, id, stream, version, type, schema, timestamp, origin, data)
                in rows.decode((Int64, UUID, String, Int64, String, Int32, Int64, String, String).self) {
                events.append(RecordedEvent(position: UInt64(position), id: id, stream: stream, version: UInt64(version), type: type,
                                            schemaVersion: UInt16(clamping: schema), timestampMilliseconds: timestamp,
                                            origin: origin, data: Data(data.utf8)))
            }
            if let last = events.last { return EventPage(events: events, lastPosition: last.position) }
            let head = try await client.query("SELECT head FROM chronicle_tenants WHERE tenant = \(tenant)", logger: logger)
            for try await value in head.decode(Int64.self) { return EventPage(events: [], lastPosition: UInt64(value)) }
            return EventPage(events: [], lastPosition: 0)
        }
    }

    /// Listens for the pushes of every server on the database, on a connection outside the
    /// pool, until ``close()``; does nothing without ``notifications``.
    public func observeCommits(_ observer: @escaping @Sendable (CommitNotice) -> Void) async {
        guard notifications else { return }
        listener.start(connection, logger: logger, observer: observer)
    }

    public func close() async {
        await listener.stop()
        running.cancel()
        await running.value
    }

    /// How long one call may wait for the database before it counts as unavailable.
    public let operationTimeout: Duration

    /// Runs `body` within `operationTimeout`, turning a database that cannot be reached
    /// (no connection, a connection lost, too slow, shutting down) into
    /// ``EventStorageError/unavailable(_:)``. A statement the database refused for what it
    /// says (``refusal(in:)``) and this module's own errors pass through.
    ///
    /// The `unavailable` reason names the database and the driver's error for the server's
    /// log; the API tells the client none of it.
    func available<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let timeout = operationTimeout
        do {
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { try await body() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let value = first else {
                    throw EventStorageError.unavailable("\(location): no answer within \(timeout)")
                }
                return value
            }
        } catch let error as EventStorageError {
            throw error
        } catch let error as PostgresSchemaError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if let refused = Self.refusal(in: error) { throw refused }
            throw EventStorageError.unavailable("\(location): \(String(reflecting: error).prefix(1000))")
        }
    }

    /// The database's answer refusing a statement, inside a transaction or not, unless its
    /// SQLSTATE's class says the database cannot serve now: `08` (connection), `53`
    /// (resources), `57` (operator intervention: shutting down), `58` (system error) are an
    /// outage like a connection that cannot be made. A refusal is answered as the server's own
    /// failure (500), not as an outage to wait out.
    static func refusal(in error: any Error) -> PSQLError? {
        var error = error
        if let failed = error as? PostgresTransactionError,
           let inner = failed.beginError ?? failed.closureError ?? failed.commitError {
            error = inner
        }
        guard let refused = error as? PSQLError, refused.code == .server else { return nil }
        let state = refused.serverInfo?[.sqlState] ?? ""
        return ["08", "53", "57", "58"].contains(String(state.prefix(2))) ? nil : refused
    }
}

import Foundation
import Logging
import PostgresNIO

/// The server's tables, created and migrated when a server starts: idempotent, versioned,
/// safe when several servers start at once.
///
/// Each migration runs in a transaction that first inserts its version into
/// `chronicle_migrations`: a second server starting at the same time waits on that row's
/// unique key, then finds it taken and skips the migration. No advisory lock, no table lock.
enum PostgresSchema {
    /// The migrations, in order: version, then its statements.
    static let migrations: [(version: Int32, statements: [PostgresQuery])] = [
        (1, [
            """
            CREATE TABLE chronicle_tenants (
                tenant TEXT PRIMARY KEY,
                head BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE chronicle_tokens (
                digest TEXT PRIMARY KEY,
                tenant TEXT NOT NULL REFERENCES chronicle_tenants (tenant)
            )
            """,
            """
            CREATE TABLE chronicle_events (
                tenant TEXT NOT NULL,
                position BIGINT NOT NULL,
                id UUID NOT NULL,
                stream TEXT NOT NULL,
                version BIGINT NOT NULL,
                type TEXT NOT NULL,
                schema_version INT NOT NULL,
                timestamp_ms BIGINT NOT NULL,
                origin TEXT NOT NULL,
                data TEXT NOT NULL,
                PRIMARY KEY (tenant, position),
                UNIQUE (tenant, id)
            )
            """,
        ]),
        (2, [
            """
            CREATE TABLE chronicle_devices (
                tenant TEXT NOT NULL,
                device TEXT NOT NULL,
                first_seen_ms BIGINT NOT NULL,
                last_seen_ms BIGINT NOT NULL,
                pushed_position BIGINT NOT NULL DEFAULT 0,
                pulled_position BIGINT NOT NULL DEFAULT 0,
                revoked BOOLEAN NOT NULL DEFAULT false,
                PRIMARY KEY (tenant, device)
            )
            """,
        ]),
    ]

    /// Brings the database's schema up to the last migration.
    /// - throws: a `PSQLError`, or ``PostgresSchemaError`` for a database that is not UTF-8.
    static func migrate(_ client: PostgresClient, logger: Logger) async throws {
        for try await encoding in try await client.query("SHOW server_encoding", logger: logger).decode(String.self)
        where encoding.uppercased() != "UTF8" {
            throw PostgresSchemaError.encoding(encoding)
        }
        try await createMigrationsTable(client, logger: logger)
        for migration in migrations {
            try await client.withTransaction(logger: logger) { connection in
                let claimed = try await connection.query("""
                    INSERT INTO chronicle_migrations (version) VALUES (\(migration.version))
                    ON CONFLICT (version) DO NOTHING RETURNING version
                    """, logger: logger)
                var mine = false
                for try await _ in claimed.decode(Int32.self) { mine = true }
                guard mine else { return }
                for statement in migration.statements { try await connection.query(statement, logger: logger) }
            }
        }
    }

    /// `CREATE TABLE IF NOT EXISTS` can still fail when two servers create it at the same
    /// moment (the loser hits the catalog's unique key): once it exists, that is success.
    private static func createMigrationsTable(_ client: PostgresClient, logger: Logger) async throws {
        for attempt in 1...3 {
            do {
                try await client.query("CREATE TABLE IF NOT EXISTS chronicle_migrations (version INT PRIMARY KEY)", logger: logger)
                return
            } catch let error as PSQLError where error.code == .server && attempt < 3 {
                continue
            }
        }
    }
}

/// Why the server's database cannot be used.
public enum PostgresSchemaError: Error, CustomStringConvertible, Equatable {
    /// The database's encoding (the one named) is not `UTF8`.
    case encoding(String)

    public var description: String {
        switch self {
        case .encoding(let encoding):
            "the database's encoding is \(encoding), not UTF8: create it with ENCODING 'UTF8'"
        }
    }
}

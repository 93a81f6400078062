import ChronicleLog
import Foundation
import Logging
import PostgresNIO

/// One pushed batch stored in one transaction: the tenant's row locked, the ids already
/// stored found, the new events given the next positions and inserted, the head moved, and
/// (with `notifies`) the servers listening told, at commit, that the tenant has new events.
struct PostgresAppend {
    let connection: PostgresConnection
    let notifies: Bool
    let logger: Logger

    func append(_ events: [ForeignEvent], for tenant: String) async throws -> IngestResult {
        // The tenant's row, locked until commit: appends of one tenant go one after another.
        try await connection.query("INSERT INTO chronicle_tenants (tenant, head) VALUES (\(tenant), 0) ON CONFLICT (tenant) DO NOTHING",
                                   logger: logger)
        var head: Int64 = 0
        for try await value in try await connection.query(
            "SELECT head FROM chronicle_tenants WHERE tenant = \(tenant) FOR UPDATE", logger: logger).decode(Int64.self) {
            head = value
        }
        var known = Set<UUID>()
        for try await id in try await connection.query(PostgresStatements.storedIDs(events.map(\.id), of: tenant),
                                                        logger: logger).decode(UUID.self) {
            known.insert(id)
        }
        var fresh: [ForeignEvent] = []
        for event in events where !known.contains(event.id) {
            known.insert(event.id)   // the same id twice in one batch: one event
            fresh.append(event)
        }
        guard !fresh.isEmpty else { return IngestResult(accepted: 0, duplicates: events.count, head: UInt64(head)) }
        let positions = fresh.indices.map { head + 1 + Int64($0) }
        try await connection.query("""
            INSERT INTO chronicle_events (tenant, position, id, stream, version, type, schema_version, timestamp_ms, origin, data)
            SELECT \(tenant), p, i, s, v, t, sv, ts, o, d
            FROM UNNEST(\(positions)::bigint[], \(fresh.map(\.id))::uuid[], \(fresh.map(\.stream))::text[],
                        \(fresh.map { Int64($0.version) })::bigint[], \(fresh.map(\.type))::text[],
                        \(fresh.map { Int32($0.schemaVersion) })::int[], \(fresh.map(\.timestampMilliseconds))::bigint[],
                        \(fresh.map(\.origin))::text[], \(fresh.map { String(decoding: $0.data, as: UTF8.self) })::text[])
                 AS batch(p, i, s, v, t, sv, ts, o, d)
            """, logger: logger)
        let newHead = head + Int64(fresh.count)
        try await connection.query("UPDATE chronicle_tenants SET head = \(newHead) WHERE tenant = \(tenant)", logger: logger)
        if notifies {
            // Delivered when the transaction commits, never if it rolls back.
            try await connection.query("SELECT pg_notify(\(PostgresCommitListener.channel), \(tenant))", logger: logger)
        }
        return IngestResult(accepted: fresh.count, duplicates: events.count - fresh.count, head: UInt64(newHead))
    }
}

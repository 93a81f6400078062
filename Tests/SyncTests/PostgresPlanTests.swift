import ChronicleWire
import ChronicleLog
import Foundation
import Logging
import PostgresNIO
import ChronicleServer
@testable import ChronicleServerPostgres
import Testing

/// The two statements whose plans decide how the PostgreSQL storage scales as a tenant grows
/// (``PostgresStatements``), planned by a real cluster in the state that misled the planner:
/// a table that grew by pushes and was never analyzed (autovacuum off).
@Suite("PostgreSQL plans as a tenant grows", .timeLimit(.minutes(10)))
struct PostgresPlanTests {
    static let tenant = "alpha"

    @Test("a push's id lookup probes the (tenant, id) key and finds exactly the stored ids; a page reads no more rows than it returns")
    func plansStayBounded() async throws {
        try await PostgresCluster.with(settings: ["autovacuum=off"]) { cluster in
            let storage = try PostgresEventStorage(url: cluster.url, operationTimeout: .seconds(60), logger: Quiet.logger)
            var tokens = TokenTable()
            try tokens.add(token: "token-a", tenant: Self.tenant)
            try await storage.prepare(tokens: tokens)
            let stored = (1...4_000).map(Self.event)
            for push in stride(from: 0, to: stored.count, by: 500) {
                _ = try await storage.append(Array(stored[push..<push + 500]), for: Self.tenant)
            }
            await storage.close()

            let location = try DatabaseLocation(url: cluster.url)
            let client = PostgresClient(configuration: .init(host: location.host, port: location.port, username: location.user,
                                                             password: location.password, database: location.database, tls: .disable))
            let running = Task { await client.run() }
            defer { running.cancel() }

            // Half of a pushed batch already stored, half new.
            let pushed = stored[3_750...].map(\.id) + (4_001...4_250).map { Self.event($0).id }
            let lookup = PostgresStatements.storedIDs(pushed, of: Self.tenant)
            var found = Set<UUID>()
            for try await id in try await client.query(lookup, logger: Quiet.logger).decode(UUID.self) { found.insert(id) }
            #expect(found == Set(stored[3_750...].map(\.id)))
            let lookupPlan = try await Self.explain(lookup, client)
            #expect(lookupPlan.contains("chronicle_events_tenant_id_key"), "\(lookupPlan)")
            #expect(!lookupPlan.contains("Seq Scan") && !lookupPlan.contains("Bitmap"), "\(lookupPlan)")

            let page = PostgresStatements.page(of: Self.tenant, after: 1_000, limit: 500, maxBytes: WirePage.maxDataBytes)
            var positions: [Int64] = []
            for try await row in try await client.query(page, logger: Quiet.logger) {
                positions.append(try row.decode((Int64, UUID, String, Int64, String, Int32, Int64, String, String).self).0)
            }
            #expect(positions == Array(1_001...1_500))
            let pagePlan = try await Self.explain(page, client)
            let scanned = Self.actualRows(ofScansIn: pagePlan)
            #expect(!scanned.isEmpty, "\(pagePlan)")
            #expect(scanned.allSatisfy { $0 <= 500 }, "a page of 500 read \(scanned) rows:\n\(pagePlan)")
        }
    }

    static func event(_ n: Int) -> ForeignEvent {
        ForeignEvent(id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", n))!, stream: "todo-\(n % 97)",
                     version: UInt64(n / 97 + 1), type: "TodoCompleted", schemaVersion: 1, timestampMilliseconds: Int64(n),
                     origin: "device", data: Data("{}".utf8))
    }

    /// The plan PostgreSQL runs for `query`, with the rows each node actually produced.
    static func explain(_ query: PostgresQuery, _ client: PostgresClient) async throws -> String {
        let explained = PostgresQuery(unsafeSQL: "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + query.sql, binds: query.binds)
        var lines: [String] = []
        for try await line in try await client.query(explained, logger: Quiet.logger).decode(String.self) { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    /// The `rows=N` of every scan node of `plan` (per loop, as EXPLAIN gives it).
    static func actualRows(ofScansIn plan: String) -> [Int] {
        plan.split(separator: "\n").filter { $0.contains("Scan") }.compactMap { line in
            guard let range = line.range(of: "rows=") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }
}

import ChronicleTestSupport
import ChronicleLog
import Foundation
import ChronicleServer
import ChronicleServerLMDB
import ChronicleServerPostgres
import Testing

/// What every ``EventStorage`` must do, checked the same way against each backend: the
/// guarantees the HTTP API builds on (docs/PROTOCOL.md). A new backend is added to
/// ``Backend/all`` and must pass every test here unchanged.
@Suite("Event storage conformance", .timeLimit(.minutes(10)))
struct EventStorageConformanceTests {
    /// A way to get a fresh, empty storage, and to let go of it.
    struct Backend: Sendable, CustomTestStringConvertible {
        let name: String
        let make: @Sendable () async throws -> (storage: any EventStorage, cleanup: @Sendable () async -> Void)

        var testDescription: String { name }

        static let lmdb = Backend(name: "lmdb") {
            let folder = try TemporaryFolder("storage")
            let storage = LMDBEventStorage(dataDirectory: folder.path, options: .init(noSync: true))
            return (storage, { await storage.close(); folder.remove() })
        }

        /// A cluster of the test's own (``PostgresCluster``), its `postgres` database.
        static let postgres = Backend(name: "postgres") {
            let cluster = try await PostgresCluster.start()
            // Generous: a busy machine running the whole suite is slow, not down.
            let storage = try PostgresEventStorage(url: cluster.url, operationTimeout: .seconds(60), logger: Quiet.logger)
            return (storage, { await storage.close(); await cluster.stop() })
        }

        /// PostgreSQL running every transaction SERIALIZABLE, as CockroachDB does by default:
        /// concurrent appends of one tenant are refused as serialization failures and run again.
        static let postgresSerializable = Backend(name: "postgres-serializable") {
            let cluster = try await PostgresCluster.start(settings: ["default_transaction_isolation=serializable"])
            let storage = try PostgresEventStorage(url: cluster.url, operationTimeout: .seconds(60), logger: Quiet.logger)
            return (storage, { await storage.close(); await cluster.stop() })
        }

        static let all: [Backend] = [.lmdb, .postgres, .postgresSerializable]
    }

    static func event(_ n: Int, stream: String = "s", version: UInt64? = nil, schemaVersion: UInt16 = 1) -> ForeignEvent {
        ForeignEvent(id: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012x", n))!, stream: stream,
                     version: version ?? UInt64(n), type: "T", schemaVersion: schemaVersion, timestampMilliseconds: Int64(n),
                     origin: "device", data: Data(#"{"n":\#(n)}"#.utf8))
    }

    static func with(_ backend: Backend, _ body: (any EventStorage) async throws -> Void) async throws {
        let (storage, cleanup) = try await backend.make()
        var tokens = TokenTable()
        try tokens.add(token: "token-a", tenant: "alpha")
        try tokens.add(token: "token-b", tenant: "beta")
        do {
            try await storage.prepare(tokens: tokens)
            try await body(storage)
        } catch {
            await cleanup()
            throw error
        }
        await cleanup()
    }

    @Test("tokens map to their tenants; an unknown token to none", arguments: Backend.all)
    func tokens(backend: Backend) async throws {
        try await Self.with(backend) { (storage: any EventStorage) async throws in
            #expect(try await storage.tenant(forToken: "token-a") == "alpha")
            #expect(try await storage.tenant(forToken: "token-b") == "beta")
            #expect(try await storage.tenant(forToken: "token-c") == nil)
            #expect(try await storage.tenant(forToken: "") == nil)
        }
    }

    @Test("positions run 1, 2, 3, … across batches; an id is stored once; a batch re-sent stores nothing", arguments: Backend.all)
    func idempotentAndGapFree(backend: Backend) async throws {
        try await Self.with(backend) { (storage: any EventStorage) async throws in
            let first = try await storage.append((1...3).map { Self.event($0) }, for: "alpha")
            #expect((first.accepted, first.duplicates, first.head) == (3, 0, 3))
            let again = try await storage.append([Self.event(2), Self.event(3), Self.event(4)], for: "alpha")
            #expect((again.accepted, again.duplicates, again.head) == (1, 2, 4))
            let page = try await storage.events(of: "alpha", after: 0, limit: 100)
            #expect(page.events.map(\.position) == [1, 2, 3, 4])
            #expect(page.events.map(\.id) == (1...4).map { Self.event($0).id })
            #expect(page.lastPosition == 4)
            #expect(page.events[1].data == Self.event(2).data, "the payload's bytes come back as they went")
            // An id twice in one batch is one event, at its first place; the batch's order is kept.
            let twice = try await storage.append([Self.event(6), Self.event(5), Self.event(6), Self.event(2), Self.event(7)], for: "alpha")
            #expect((twice.accepted, twice.duplicates, twice.head) == (3, 2, 7))
            let all = try await storage.events(of: "alpha", after: 4, limit: 100)
            #expect(all.events.map(\.position) == [5, 6, 7])
            #expect(all.events.map(\.id) == [6, 5, 7].map { Self.event($0).id })
        }
    }

    @Test("a page continues exactly after its cursor, at most limit long; past the end it is empty with the last position", arguments: Backend.all)
    func paging(backend: Backend) async throws {
        try await Self.with(backend) { (storage: any EventStorage) async throws in
            _ = try await storage.append((1...10).map { Self.event($0) }, for: "alpha")
            var cursor: UInt64 = 0, seen: [UInt64] = []
            while true {
                let page = try await storage.events(of: "alpha", after: cursor, limit: 3)
                guard let last = page.events.last else {
                    #expect(page.lastPosition == 10)
                    break
                }
                #expect(page.events.count <= 3)
                #expect(page.events.first?.position == cursor + 1)
                seen += page.events.map(\.position)
                cursor = last.position
            }
            #expect(seen == Array(1...10))
        }
    }

    @Test("a page also ends before the event that would take its data past maxBytes; the first event always comes", arguments: Backend.all)
    func pagesBoundedByBytes(backend: Backend) async throws {
        try await Self.with(backend) { (storage: any EventStorage) async throws in
            // Six events of exactly 100 bytes of data each.
            let events = (1...6).map { n in
                var event = Self.event(n)
                event.data = Data((#"{"x":""# + String(repeating: "\(n % 10)", count: 92) + #""}"#).utf8)
                return event
            }
            #expect(events.allSatisfy { $0.data.count == 100 })
            _ = try await storage.append(events, for: "alpha")
            let positions = { (after: UInt64, maxBytes: Int) in
                try await storage.events(of: "alpha", after: after, limit: 10, maxBytes: maxBytes).events.map(\.position)
            }
            #expect(try await positions(0, 250) == [1, 2], "300 bytes would not fit")
            #expect(try await positions(0, 300) == [1, 2, 3], "exactly 300 fit")
            #expect(try await positions(0, 50) == [1], "the first event comes whatever its size")
            #expect(try await positions(2, 250) == [3, 4])
            #expect(try await positions(4, 1_000) == [5, 6])
            let cut = try await storage.events(of: "alpha", after: 0, limit: 10, maxBytes: 250)
            #expect(cut.lastPosition == 2, "the page's last event, as for a page cut by its limit")
            #expect(try await storage.events(of: "alpha", after: 0, limit: 2, maxBytes: 1_000).events.map(\.position) == [1, 2],
                    "the limit still holds")
            #expect(try await storage.events(of: "alpha", after: 0, limit: 10, maxBytes: 1_000).events.map(\.data) == events.map(\.data))
        }
    }

    @Test("tenants never see each other's events, and count their positions apart", arguments: Backend.all)
    func tenantIsolation(backend: Backend) async throws {
        try await Self.with(backend) { (storage: any EventStorage) async throws in
            _ = try await storage.append([Self.event(1), Self.event(2)], for: "alpha")
            let beta = try await storage.append([Self.event(1), Self.event(3)], for: "beta")
            #expect((beta.accepted, beta.head) == (2, 2), "the same id in another tenant is another event")
            #expect(try await storage.events(of: "alpha", after: 0, limit: 10).events.map(\.id) == [Self.event(1).id, Self.event(2).id])
            #expect(try await storage.events(of: "beta", after: 0, limit: 10).events.map(\.id) == [Self.event(1).id, Self.event(3).id])
            #expect(try await storage.events(of: "gamma", after: 0, limit: 10) == EventPage(events: [], lastPosition: 0))
        }
    }

    @Test("a batch with an invalid event is refused whole: nothing of it is stored", arguments: Backend.all)
    func allOrNothing(backend: Backend) async throws {
        try await Self.with(backend) { (storage: any EventStorage) async throws in
            _ = try await storage.append([Self.event(1)], for: "alpha")
            var bad = Self.event(3)
            bad.type = ""
            await #expect(throws: EventStorageError.self) {
                _ = try await storage.append([Self.event(2), bad], for: "alpha")
            }
            #expect(try await storage.events(of: "alpha", after: 0, limit: 10).events.map(\.position) == [1])
        }
    }

    @Test("what an event was pushed with comes back: stream, version, type, schema version, timestamp, origin, data", arguments: Backend.all)
    func fidelity(backend: Backend) async throws {
        try await Self.with(backend) { (storage: any EventStorage) async throws in
            let pushed = Self.event(7, stream: "tag-x", version: 4, schemaVersion: 2)
            _ = try await storage.append([pushed], for: "alpha")
            let served = try #require(try await storage.events(of: "alpha", after: 0, limit: 1).events.first)
            #expect(served.foreign() == pushed)
        }
    }

    @Test("concurrent batches with duplicates re-sent: positions exactly 1…N, each id once", arguments: Backend.all)
    func concurrentAppends(backend: Backend) async throws {
        try await Self.with(backend) { (storage: any EventStorage) async throws in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for batch in 0..<10 {
                            let ids = (0..<5).map { writer * 1000 + batch * 5 + $0 }
                            _ = try await storage.append(ids.map { Self.event($0, stream: "w\(writer)", version: UInt64($0 % 1000 + 1)) },
                                                         for: "alpha")
                            // Re-sent, as a client does when an answer is lost.
                            _ = try await storage.append(ids.map { Self.event($0, stream: "w\(writer)", version: UInt64($0 % 1000 + 1)) },
                                                         for: "alpha")
                        }
                    }
                }
                try await group.waitForAll()
            }
            let page = try await storage.events(of: "alpha", after: 0, limit: 1000)
            #expect(page.events.map(\.position) == Array(1...200))
            #expect(Set(page.events.map(\.id)).count == 200)
        }
    }

    @Test("PostgreSQL under SERIALIZABLE: concurrent appends the database refuses as serialization failures are run again, none lost")
    func serializationFailuresRetried() async throws {
        try await PostgresCluster.with(settings: ["default_transaction_isolation=serializable"]) { cluster in
            try await Self.withPreparedStorage(on: cluster) { storage in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<4 {
                        group.addTask {
                            for batch in 0..<25 {
                                let n = writer * 1000 + batch + 1
                                _ = try await storage.append([Self.event(n, stream: "w\(writer)", version: UInt64(batch + 1))], for: "alpha")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let page = try await storage.events(of: "alpha", after: 0, limit: 1000)
                #expect(page.events.map(\.position) == Array(1...100))
                // The database did refuse some (the test is about those).
                #expect(cluster.serverLog().contains("could not serialize access"))
            }
        }
    }

    @Test("PostgreSQL keeps digests of the tokens, never the tokens")
    func postgresTokenDigests() async throws {
        try await PostgresCluster.with { cluster in
            try await Self.withPreparedStorage(on: cluster, token: "alpha-secret-token") { storage in
                #expect(try await storage.tenant(forToken: "alpha-secret-token") == "alpha")
                let dump = try await cluster.dump()
                let digest = TokenTable.hex(TokenTable.digest("alpha-secret-token"))
                #expect(dump.contains(digest))
                #expect(!dump.contains("secret"))
            }
        }
    }

    /// A PostgreSQL storage on `cluster`, prepared with `token` for tenant `alpha`, closed
    /// after `body` whatever happens.
    static func withPreparedStorage(on cluster: PostgresCluster, token: String = "token-a",
                                    _ body: (PostgresEventStorage) async throws -> Void) async throws {
        let storage = try PostgresEventStorage(url: cluster.url, operationTimeout: .seconds(60), logger: Quiet.logger)
        var tokens = TokenTable()
        try tokens.add(token: token, tenant: "alpha")
        do {
            try await storage.prepare(tokens: tokens)
            try await body(storage)
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
    }

    @Test("PostgreSQL down: every call says the storage is unavailable, never crashes; prepare runs again and again")
    func postgresDown() async throws {
        try await PostgresCluster.with { cluster in
            try await Self.withPreparedStorage(on: cluster) { up in
                var tokens = TokenTable()
                try tokens.add(token: "token-a", tenant: "alpha")
                try await up.prepare(tokens: tokens)   // a second server starting on the same database
                _ = try await up.append([Self.event(1)], for: "alpha")
            }
            await cluster.stop()
            // The database gone: each call gives up within the storage's operation timeout.
            let storage = try PostgresEventStorage(url: cluster.url, operationTimeout: .seconds(2), logger: Quiet.logger)
            await #expect(throws: EventStorageError.self) { _ = try await storage.append([Self.event(2)], for: "alpha") }
            await #expect(throws: EventStorageError.self) { _ = try await storage.events(of: "alpha", after: 0, limit: 10) }
            await #expect(throws: EventStorageError.self) { _ = try await storage.tenant(forToken: "token-a") }
            await storage.close()
        }
    }

    @Test("PostgreSQL back after an outage: the same storage serves again, its data intact, with no restart of the server")
    func postgresReturns() async throws {
        try await PostgresCluster.with { cluster in
            let storage = try PostgresEventStorage(url: cluster.url, operationTimeout: .seconds(2), logger: Quiet.logger)
            var tokens = TokenTable()
            try tokens.add(token: "token-a", tenant: "alpha")
            // As a client does with a 503: try again, for up to 90 s (a busy machine may answer
            // slower than the 2 s timeout; one running two suites at once took 50).
            func retrying<T>(_ call: () async throws -> T) async throws -> T {
                let givingUp = ContinuousClock.now + .seconds(90)
                while ContinuousClock.now < givingUp {
                    do { return try await call() } catch EventStorageError.unavailable {}
                }
                return try await call()
            }
            do {
                try await retrying { try await storage.prepare(tokens: tokens) }
                _ = try await retrying { try await storage.append([Self.event(1)], for: "alpha") }
                try await cluster.stopServer()
                await #expect(throws: EventStorageError.self) { _ = try await storage.append([Self.event(2)], for: "alpha") }
                try await cluster.startServer()
                // The pool connects again on a later call.
                let result = try await retrying { try await storage.append([Self.event(2)], for: "alpha") }
                #expect(result.head == 2)
                #expect(try await retrying { try await storage.events(of: "alpha", after: 0, limit: 10) }.events.map(\.position) == [1, 2])
            } catch {
                await storage.close()
                throw error
            }
            await storage.close()
        }
    }
}

extension EventStorage {
    /// A page bounded by its limit alone, for the tests whose events are small.
    fileprivate func events(of tenant: String, after position: UInt64, limit: Int) async throws -> EventPage {
        try await events(of: tenant, after: position, limit: limit, maxBytes: .max)
    }
}

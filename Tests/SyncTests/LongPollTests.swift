import ChronicleTestSupport
import ChronicleLog
import Foundation
import PostgresNIO
import ChronicleServer
import ChronicleServerPostgres
import Testing

/// `GET /v1/events?wait=`: a pull that finds nothing waits for the tenant's next commit,
/// on this server or (PostgreSQL) on any server of the database, and answers what it has
/// when its wait ends or the server stops. Waits assert events; the only time asserted is
/// "answered before the wait ended", with a wide margin.
@Suite("Long polls", .timeLimit(.minutes(5)))
struct LongPollTests {
    static let token = "long-poll-token"

    static func events(_ count: Int, stream: String = "s") -> [RecordedEvent] {
        (0..<count).map { n in
            RecordedEvent(position: 0, id: UUID(), stream: stream, version: UInt64(n + 1), type: "T",
                          timestampMilliseconds: Int64(n), origin: "pusher", data: Data(#"{"n":\#(n)}"#.utf8))
        }
    }

    /// Pushes `count` events through `server` for `token`'s tenant.
    static func push(_ count: Int, to server: TestServer, token: String = token) async throws {
        let reply = try await server.http.request("POST", "v1/events", token: token, body: HTTP.pushBody(events(count)))
        #expect(reply.status == 200, "push answered \(reply.status): \(reply.text)")
    }

    /// Returns once `count` pulls wait on `server` (a hang guard of a minute).
    static func waiting(_ count: Int, on server: TestServer) async throws {
        try await withTimeout(.seconds(60), "\(count) pulls waiting") {
            while server.running.server.api.waiters.count < count { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    /// Runs `body`, then stops `servers` (gracefully) whatever happened.
    static func stopping<T>(_ servers: TestServer..., after body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            for server in servers { try await server.stop() }
            return result
        } catch {
            for server in servers { try? await server.stop() }
            throw error
        }
    }

    /// A pull started in the background, with the time it took.
    static func pull(_ server: TestServer, token: String = token, after: UInt64 = 0, wait: Int)
        -> Task<(answer: LongPoll.Answer, took: Duration), any Error> {
        Task {
            let started = ContinuousClock.now
            let answer = try await LongPoll.pull(server.url, token: token, after: after, wait: wait)
            return (answer, ContinuousClock.now - started)
        }
    }

    @Test("a pull waiting on an empty tenant is answered with the events another client pushes, before its wait ends")
    func wokenByPush() async throws {
        let server = try await TestServer.start(tokens: [Self.token: nil])
        try await Self.stopping(server) {
            let waiter = Self.pull(server, wait: 60)
            try await Self.waiting(1, on: server)
            try await Self.push(3, to: server)
            let (answer, took) = try await waiter.value
            #expect(answer.status == 200)
            #expect(try answer.positions() == [1, 2, 3])
            #expect(took < .seconds(45), "answered after \(took), the wait being 60 s")
            #expect(server.running.server.api.waiters.count == 0)
        }
    }

    @Test("a pull with events after its position answers at once; `wait` out of 0…60 or not digits is a 400")
    func waitParameter() async throws {
        let server = try await TestServer.start(tokens: [Self.token: nil])
        try await Self.stopping(server) {
            try await Self.push(2, to: server)
            let answer = try await LongPoll.pull(server.url, token: Self.token, after: 1, wait: 60)
            #expect(try answer.positions() == [2])
            let empty = try await LongPoll.pull(server.url, token: Self.token, after: 2, wait: 0)
            #expect(try empty.positions() == [])
            for bad in ["61", "-1", "1.5", "", "+1", "9999999999999999999999"] {
                let reply = try await server.http.request("GET", "v1/events?after=2&wait=\(bad)", token: Self.token)
                #expect(reply.status == 400, "wait=\(bad)")
                #expect(reply.errorMessage == "\"wait\" must be a number of seconds from 0 to 60 in decimal digits", "wait=\(bad)")
            }
            let twice = try await server.http.request("GET", "v1/events?wait=1&wait=1", token: Self.token)
            #expect(twice.status == 400)
        }
    }

    @Test("a pull waiting on one PostgreSQL server is woken by a push through another, before its wait ends")
    func wokenAcrossServers() async throws {
        try await PostgresCluster.with { cluster in
            let first = try await TestServer.start(tokens: [Self.token: nil], sharing: cluster)
            let second = try await TestServer.start(tokens: [Self.token: nil], sharing: cluster)
            try await Self.stopping(first, second) {
                let waiter = Self.pull(first, wait: 60)
                try await Self.waiting(1, on: first)
                try await Self.push(4, to: second)
                let (answer, took) = try await waiter.value
                #expect(answer.status == 200)
                #expect(try answer.positions() == [1, 2, 3, 4])
                #expect(took < .seconds(45), "answered after \(took), the wait being 60 s")
            }
        }
    }

    @Test("a push of one tenant answers that tenant's waiters on every server; another tenant's waiter answers empty when its wait ends")
    func otherTenantNotWoken() async throws {
        try await PostgresCluster.with { cluster in
            let tokens: [String: String?] = ["token-acme": "acme", "token-globex": "globex"]
            let first = try await TestServer.start(tokens: tokens, sharing: cluster)
            let second = try await TestServer.start(tokens: tokens, sharing: cluster)
            try await Self.stopping(first, second) {
                let acme = Self.pull(first, token: "token-acme", wait: 60)
                let globex = Self.pull(first, token: "token-globex", wait: 3)
                try await Self.waiting(2, on: first)
                try await Self.push(2, to: second, token: "token-acme")
                let (woken, took) = try await acme.value
                #expect(try woken.positions() == [1, 2])
                #expect(took < .seconds(45), "answered after \(took), the wait being 60 s")
                let (other, waited) = try await globex.value
                #expect(other.status == 200)
                #expect(try other.positions() == [])
                #expect(try other.page().lastPosition == 0)
                #expect(waited >= .milliseconds(2500), "answered after \(waited), before its 3 s wait ended")
            }
        }
    }

    @Test("every server's LISTEN connection cut, a push lands before they are back: once listening again each server wakes its waiters, who answer before their wait ends")
    func listenerReconnects() async throws {
        try await PostgresCluster.with { cluster in
            let first = try await TestServer.start(tokens: [Self.token: nil], sharing: cluster)
            let second = try await TestServer.start(tokens: [Self.token: nil], sharing: cluster)
            try await Self.stopping(first, second) {
                let location = try DatabaseLocation(url: cluster.url)
                let client = PostgresClient(configuration: .init(host: location.host, port: location.port, username: location.user,
                                                                 password: location.password, database: location.database, tls: .disable))
                let running = Task { await client.run() }
                defer { running.cancel() }
                let waiter = Self.pull(first, wait: 60)
                try await Self.waiting(1, on: first)
                // Each server listens on a connection of its own once it has started; on a loaded
                // machine the second may not have yet: wait until both are there (at most 20 s).
                let listening: PostgresQuery = "SELECT count(*)::int FROM pg_stat_activity WHERE query LIKE 'LISTEN%'"
                for _ in 0..<200 {
                    var count = 0
                    for try await found in try await client.query(listening, logger: Quiet.logger).decode(Int.self) { count = found }
                    if count >= 2 { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                var cut = 0
                let terminate: PostgresQuery = """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()
                    """
                for try await done in try await client.query(terminate, logger: Quiet.logger).decode(Bool.self) where done { cut += 1 }
                #expect(cut == 2, "one LISTEN connection a server")
                // The servers connect again after a second's pause: this push's notification is lost.
                try await Self.push(3, to: second)
                let (answer, took) = try await waiter.value
                #expect(try answer.positions() == [1, 2, 3])
                #expect(took < .seconds(45), "answered after \(took), the wait being 60 s")
            }
        }
    }

    @Test("with notifications off, a pull on one server still receives a push through another, when its wait ends")
    func deliveredWithoutNotifications() async throws {
        try await PostgresCluster.with { cluster in
            let first = try await TestServer.start(tokens: [Self.token: nil], sharing: cluster, notifications: false)
            let second = try await TestServer.start(tokens: [Self.token: nil], sharing: cluster, notifications: false)
            try await Self.stopping(first, second) {
                // Nothing wakes the pull: it answers when its wait ends, which must come after the
                // push even on a busy machine (3 s was once too short beside two busy processes).
                let waiter = Self.pull(first, wait: 15)
                try await Self.waiting(1, on: first)
                try await Self.push(5, to: second)
                let (answer, _) = try await waiter.value
                #expect(answer.status == 200)
                #expect(try answer.positions() == [1, 2, 3, 4, 5])
            }
        }
    }

    @Test("beyond the server's most waiting pulls, a pull that would wait is answered 503 with Retry-After; one with events is served")
    func waiterLimit() async throws {
        let server = try await TestServer.start(tokens: [Self.token: nil], limits: SyncAPI.Limits(maxWaiters: 2))
        try await Self.stopping(server) {
            let waiters = [Self.pull(server, wait: 60), Self.pull(server, wait: 60)]
            try await Self.waiting(2, on: server)
            let refused = try await LongPoll.pull(server.url, token: Self.token, after: 0, wait: 60)
            #expect(refused.status == 503)
            #expect(refused.retryAfter == "1")
            #expect(refused.body.contains("too many pulls are waiting on this server"))
            let plain = try await LongPoll.pull(server.url, token: Self.token, after: 0, wait: 0)
            #expect(plain.status == 200)
            try await Self.push(1, to: server)
            for waiter in waiters { #expect(try await waiter.value.answer.positions() == [1]) }
            let served = try await LongPoll.pull(server.url, token: Self.token, after: 0, wait: 60)
            #expect(try served.positions() == [1])
        }
    }

    @Test("100 pulls waiting at one position, one push: all answer with it after one shared read of the storage, not 100; the gauge counts them while they wait")
    func wokenPullsShareOneRead() async throws {
        let server = try await TestServer.start(tokens: [Self.token: nil])
        try await Self.stopping(server) {
            func metric(_ series: String) async throws -> Double {
                let text = try await server.http.request("GET", "metrics", token: nil).text
                return ServerMetricsTests.sample(series, in: text) ?? 0
            }
            let count = 100
            let pulls = (0..<count).map { _ in Self.pull(server, wait: 60) }
            try await Self.waiting(count, on: server)
            #expect(try await metric("chronicle_pulls_waiting") == Double(count))
            let reads = #"chronicle_storage_duration_seconds_count{operation="events"}"#
            let before = try await metric(reads)
            try await Self.push(1, to: server)
            for pull in pulls { #expect(try await pull.value.answer.positions() == [1]) }
            let after = try await metric(reads)
            // One read for all of them (a few more if a pull was between waits as the push landed).
            #expect(after - before <= 5, "\(after - before) storage reads for \(count) woken pulls")
            #expect(try await metric("chronicle_pulls_waiting") == 0)
        }
    }

    @Test("a server stopped while 200 pulls wait stops before their wait ends, every pull answered (empty) or its connection closed")
    func stopWithManyWaiters() async throws {
        let server = try await TestServer.start(tokens: [Self.token: nil])
        let count = 200
        let pulls = (0..<count).map { _ in
            Task { () -> Int? in try? await LongPoll.pull(server.url, token: Self.token, after: 0, wait: 60).status }
        }
        try await Self.waiting(count, on: server)
        let started = ContinuousClock.now
        try await server.stop()
        let took = ContinuousClock.now - started
        #expect(took < .seconds(30), "stopping took \(took), the waits being 60 s")
        var answered = 0
        for pull in pulls {
            let status = await pull.value
            #expect(status == nil || status == 200)
            if status == 200 { answered += 1 }
        }
        #expect(server.running.server.api.waiters.count == 0)
    }
}

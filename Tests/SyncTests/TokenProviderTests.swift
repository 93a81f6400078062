import ChronicleSync
import ChronicleTestSupport
import ChronicleLog
import Foundation
import Synchronization
import ChronicleServer
import Testing

/// The engine's token provider against a real server verifying PyJWT's tokens: asked once
/// for a fresh token after a 401, then the error stands.
@Suite("Token provider", .timeLimit(.minutes(10)))
struct TokenProviderTests {
    /// Records what the engine asked for, and answers from `answer`.
    final class Asked: Sendable {
        private let needs = Mutex<[SyncTokenProvider.Need]>([])
        var list: [SyncTokenProvider.Need] { needs.withLock { $0 } }
        func provider(_ answer: @escaping @Sendable (SyncTokenProvider.Need) async throws -> String) -> SyncTokenProvider {
            SyncTokenProvider { need in
                self.needs.withLock { $0.append(need) }
                return try await answer(need)
            }
        }
    }

    /// A server trusting the minted keys with no leeway, a store with `count` events.
    static func withJWTServer(count: Int, _ body: (TestServer, EventLog, JWTMint) async throws -> Void) async throws {
        let mint = try await JWTMint.make()
        defer { mint.remove() }
        var jwt = try mint.authentication()
        jwt.leeway = .zero
        let server = try await TestServer.start(tokens: [:], jwt: jwt)
        let store = try TemporaryFolder("client")
        defer { store.remove() }
        do {
            let log = try TestLog.open(store: store.path)
            defer { log.close() }
            try await TestLog.appendEvents(log, count: count)
            try await body(server, log, mint)
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }

    @Test("an expired token is refused, the provider asked once for a fresh one, and the push goes through")
    func refreshOnce() async throws {
        try await Self.withJWTServer(count: 7) { server, log, mint in
            let expired = try await mint.token(tenant: "alice", ttl: -30)
            let valid = try await mint.token(tenant: "alice")
            let asked = Asked()
            var configuration = SyncConfiguration.testing(server.url, token: nil)
            configuration.tokenProvider = asked.provider { need in need == .fresh ? valid : expired }
            let engine = try SyncEngine.quiet(log: log, configuration: configuration)
            let summary = try await engine.push()
            #expect(summary.isComplete, "\(String(describing: summary.failure))")
            #expect(summary.eventsAcknowledged == 7)
            #expect(asked.list == [.current, .fresh])
            // The fresh token is kept: a pull asks nothing more.
            let pulled = try await engine.pull()
            #expect(pulled.isComplete)
            #expect(asked.list == [.current, .fresh])
            #expect(try await server.http.pullAll(token: valid).count == 7)
            let metrics = try await server.http.request("GET", "metrics", token: nil).text
            #expect(ServerMetricsTests.sample(#"chronicle_auth_refusals_total{reason="expired"}"#, in: metrics) == 1)
        }
    }

    @Test("a fresh token refused too stops the push with the 401; nothing is stored, the events stay pending")
    func refusedTwice() async throws {
        try await Self.withJWTServer(count: 3) { server, log, mint in
            let expired = try await mint.token(tenant: "alice", ttl: -30)
            let stillExpired = try await mint.token("HS256", kid: "hs-1", tenant: "alice", ttl: -30)
            let asked = Asked()
            var configuration = SyncConfiguration.testing(server.url, token: nil)
            configuration.tokenProvider = asked.provider { need in need == .fresh ? stillExpired : expired }
            let engine = try SyncEngine.quiet(log: log, configuration: configuration)
            let summary = try await engine.push()
            #expect(summary.failure?.status == 401)
            #expect(summary.failure?.isRetryable == false)
            #expect(summary.failure?.description.contains("expired") == true)
            #expect(summary.requests == 1)
            #expect(asked.list == [.current, .fresh])
            #expect(try SyncEngine.status(of: log).pending == 3)
            #expect(try SyncEngine.status(of: log).phase == .stopped)
            let valid = try await mint.token(tenant: "alice")
            #expect(try await server.http.pullAll(token: valid).isEmpty)
        }
    }

    @Test("a provider that throws is a retryable failure; a fixed token is never asked again")
    func providerFailures() async throws {
        try await Self.withJWTServer(count: 2) { server, log, _ in
            var configuration = SyncConfiguration.testing(server.url, token: nil, maxAttempts: 2)
            configuration.tokenProvider = SyncTokenProvider { _ in throw CancellationErrorLike() }
            let failing = try await SyncEngine.quiet(log: log, configuration: configuration).push()
            guard case .credentials(let why)? = failing.failure else {
                Issue.record("expected a credentials failure, got \(String(describing: failing.failure))")
                return
            }
            #expect(why.contains("token provider"))
            #expect(failing.failure?.isRetryable == true)
            #expect(failing.requests == 2)

            var blank = SyncConfiguration.testing(server.url, token: nil, maxAttempts: 1)
            blank.tokenProvider = SyncTokenProvider { _ in "two words" }
            #expect(try await SyncEngine.quiet(log: log, configuration: blank).push().failure?.description.contains("whitespace") == true)

            // The fixed-string convenience: one request, no second try with the same token.
            let fixed = try await SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "not-a-known-token")).push()
            #expect(fixed.failure?.status == 401)
            #expect(fixed.requests == 1)
            let metrics = try await server.http.request("GET", "metrics", token: nil).text
            #expect(ServerMetricsTests.sample(#"chronicle_auth_refusals_total{reason="unknown_token"}"#, in: metrics) == 1)
        }
    }

    struct CancellationErrorLike: Error {}
}

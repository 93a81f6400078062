import ChronicleTestSupport
import ChronicleWire
import ChronicleLog
import Foundation
import ChronicleServer
import ChronicleServerLMDB
import Testing

/// JWT bearer tokens minted by PyJWT and cryptography (`tools/jwt-mint`), sent to a real
/// server on loopback: each accepted, or refused with the class the case names.
@Suite("JWT authentication", .timeLimit(.minutes(10)))
struct JWTAuthenticationTests {
    @Test("PyJWT's tokens: each algorithm accepted, each forgery refused with its class, nothing of a refusal stored")
    func mintedCases() async throws {
        let mint = try await JWTMint.make()
        defer { mint.remove() }
        let cases = try await mint.cases()
        #expect(cases.count >= 30)
        // The leeway the cases are minted for (`tools/jwt-mint cases`).
        var jwt = try mint.authentication()
        jwt.leeway = .seconds(600)
        let server = try await TestServer.start(tokens: ["token-static": "static"], jwt: jwt)
        do {
            let accepted = try await ServerTests.events(2)
            var refusedIDs: [UUID] = []
            var counts: [String: Int] = [:]
            for testCase in cases {
                if testCase.expect == "ok" {
                    let reply = try await server.http.request("POST", "v1/events", token: testCase.token, body: HTTP.pushBody(accepted))
                    #expect(reply.status == 200, "\(testCase.name): \(reply.status) \(reply.text)")
                    continue
                }
                let events = try await ServerTests.events(1)
                refusedIDs += events.map(\.id)
                let push = try await server.http.request("POST", "v1/events", token: testCase.token, body: HTTP.pushBody(events))
                #expect(push.status == 401, "\(testCase.name): \(push.status) \(push.text.prefix(200))")
                #expect(push.object["reason"] as? String == testCase.expect, "\(testCase.name): \(push.text.prefix(200))")
                #expect(push.headers["www-authenticate"] == #"Bearer error="invalid_token""#, "\(testCase.name)")
                #expect(push.errorMessage?.isEmpty == false)
                let pull = try await server.http.request("GET", "v1/events", token: testCase.token)
                #expect(pull.status == 401, "\(testCase.name)")
                #expect(pull.object["reason"] as? String == testCase.expect, "\(testCase.name)")
                counts[testCase.expect, default: 0] += 2
            }
            // Only the accepted pushes are stored, once each, under the tenant the tokens name.
            let alice = try await mint.token(tenant: "alice")
            let stored = try await server.http.pullAll(token: alice)
            #expect(stored.map(\.id) == accepted.map(\.id))
            #expect(Set(stored.map(\.id)).isDisjoint(with: refusedIDs))
            #expect(try await server.http.pullAll(token: "token-static").isEmpty)
            let tenants = try FileManager.default.contentsOfDirectory(atPath: server.data.appending("tenants")).sorted()
            #expect(tenants == ["alice", "static"], "a refused request opened a tenant: \(tenants)")

            let metrics = try await server.http.request("GET", "metrics", token: nil).text
            for (reason, count) in counts {
                let series = "chronicle_auth_refusals_total{reason=\"\(reason)\"}"
                #expect(ServerMetricsTests.sample(series, in: metrics) == Double(count), "\(series)")
            }
            #expect(ServerMetricsTests.sample("chronicle_jwt_verify_duration_seconds_count", in: metrics) ?? 0 > 0)
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }

    @Test("users are tenants apart: each JWT's tenant sees its own events only, static tokens beside them",
          arguments: ServerBackend.allCases)
    func tenantIsolation(backend: ServerBackend) async throws {
        let mint = try await JWTMint.make()
        defer { mint.remove() }
        let server = try await TestServer.start(tokens: ["token-static": "carol"], backend: backend, jwt: try mint.authentication())
        do {
            let alice = try await mint.token("RS256", kid: "rsa-1", tenant: "alice", device: "phone")
            let aliceLaptop = try await mint.token("HS256", kid: "hs-1", tenant: "alice", device: "laptop")
            let bob = try await mint.token("ES256", kid: "ec-pem", tenant: "bob", device: "phone")
            let (a, b, c) = (try await ServerTests.events(3), try await ServerTests.events(2), try await ServerTests.events(1))
            #expect(try await server.http.request("POST", "v1/events", token: alice, body: HTTP.pushBody(a)).status == 200)
            #expect(try await server.http.request("POST", "v1/events", token: bob, body: HTTP.pushBody(b)).status == 200)
            #expect(try await server.http.request("POST", "v1/events", token: "token-static", body: HTTP.pushBody(c)).status == 200)
            #expect(try await server.http.pullAll(token: aliceLaptop).map(\.id) == a.map(\.id))
            #expect(try await server.http.pullAll(token: bob).map(\.id) == b.map(\.id))
            #expect(try await server.http.pullAll(token: "token-static").map(\.id) == c.map(\.id))
            // Bob's token pushing Alice's events stores them for Bob, apart from hers.
            let again = try await server.http.request("POST", "v1/events", token: bob, body: HTTP.pushBody(a))
            #expect(again.object["accepted"] as? Int == 3)
            #expect(try await server.http.pullAll(token: alice).map(\.position) == [1, 2, 3])
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }

    @Test("a server with JWT keys only starts without static tokens; bad key files stop it with one line")
    func serveFlags() async throws {
        let mint = try await JWTMint.make()
        defer { mint.remove() }
        var empty = JWTAuthentication()
        #expect(throws: SyncServerError.noTokens) {
            _ = try SyncServer(configuration: .init(port: 0, tokens: TokenTable(), jwt: empty), storage: LMDBEventStorage(dataDirectory: "/nonexistent"))
        }
        #expect(throws: SyncServerError.self) { try empty.addHS256(secret: Array("short".utf8)) }
        #expect(throws: SyncServerError.self) { try empty.addPublicKey(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
        #expect(throws: SyncServerError.self) { try empty.addJWKS(json: "{\"keys\": 1}") }

        let chronicle = try Products.chronicle()
        for arguments in [["--jwt-public-key", mint.keys.appending("nope.pem")],
                          ["--jwt-hs256-secret-file", mint.keys.appending("rsa.pem")],
                          ["--jwt-jwks", mint.keys.appending("rsa.pem")],
                          ["--jwt-public-key", "k1=" + mint.keys.appending("rsa.pem"), "--jwt-public-key", "k1=" + mint.keys.appending("ec.pem")],
                          ["--jwt-audience", "chronicle"]] {
            let data = try TemporaryFolder("serve")
            defer { data.remove() }
            let output = try await runCommand(chronicle, ["serve", "--port", "0", "--data", data.path] + arguments)
            #expect(output.exit.status != 0, "\(arguments)")
            #expect(output.errorLines.count == 1, "\(arguments): \(output.standardError)")
            #expect(output.errorLines.first?.hasPrefix("error: ") == true, "\(output.standardError)")
        }
    }
}

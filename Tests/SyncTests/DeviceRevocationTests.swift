import ChronicleSync
import ChronicleTestSupport
import ChronicleLog
import Foundation
import ChronicleServer
import Testing

/// Devices named by PyJWT-minted tokens: recorded per tenant, revoked and reinstated by the
/// operator's commands (`chronicle server …`, a process of its own), on both storages.
@Suite("Devices and revocation", .timeLimit(.minutes(10)))
struct DeviceRevocationTests {
    /// `chronicle server ARGS --data|--database …`; the JSON it prints, or its lines.
    static func operate(_ arguments: [String], on server: TestServer, database: String? = nil) async throws -> CommandOutput {
        let chronicle = try Products.chronicle()
        let storage = database.map { ["--database", $0] } ?? server.cluster.map { ["--database", $0.url] } ?? ["--data", server.data.path]
        let output = try await runCommand(chronicle, ["server"] + arguments + storage)
        #expect(output.exit.status == 0, "server \(arguments): \(output.standardError)")
        return output
    }

    static func devicesJSON(_ tenant: String, on server: TestServer, database: String? = nil) async throws -> [[String: Any]] {
        let output = try await operate(["devices", tenant, "--json"], on: server, database: database)
        return try JSONSerialization.jsonObject(with: Data(output.standardOutputText.utf8)) as? [[String: Any]] ?? []
    }

    @Test("devices are recorded with their positions; a revoked one is refused while its tenant's others go on; reinstated, it syncs again",
          arguments: ServerBackend.allCases)
    func revokeAndReinstate(backend: ServerBackend) async throws {
        let mint = try await JWTMint.make()
        defer { mint.remove() }
        let server = try await TestServer.start(tokens: [:], backend: backend, jwt: try mint.authentication())
        do {
            let phone = try await mint.token(tenant: "alice", device: "phone")
            let laptop = try await mint.token("RS256", kid: "rsa-1", tenant: "alice", device: "laptop")
            let bob = try await mint.token(tenant: "bob", device: "phone")
            let (first, second) = (try await ServerTests.events(3), try await ServerTests.events(2))
            #expect(try await server.http.request("POST", "v1/events", token: phone, body: HTTP.pushBody(first)).status == 200)
            #expect(try await server.http.pullAll(token: laptop).count == 3)
            #expect(try await server.http.request("POST", "v1/events", token: bob, body: HTTP.pushBody(second)).status == 200)

            // The embedded storage writes its devices' file within a second: ask until it has.
            var devices: [[String: Any]] = []
            for _ in 0..<300 {
                devices = try await Self.devicesJSON("alice", on: server)
                if devices.count == 2, devices.last?["pushedPosition"] as? Int == 3, devices.first?["pulledPosition"] as? Int == 3 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(devices.map { $0["device"] as? String } == ["laptop", "phone"])
            #expect(devices[0]["pulledPosition"] as? Int == 3)
            #expect(devices[1]["pushedPosition"] as? Int == 3)
            #expect(devices.allSatisfy { $0["revoked"] as? Bool == false && $0["firstSeen"] is String && $0["lastSeen"] is String })
            let tenants = try await Self.operate(["tenants"], on: server).standardOutput
            #expect(tenants == ["alice", "bob"])

            _ = try await Self.operate(["revoke", "alice", "phone"], on: server)
            let refused = try await server.http.request("POST", "v1/events", token: phone, body: HTTP.pushBody(second))
            #expect(refused.status == 401)
            #expect(refused.object["reason"] as? String == "revoked_device")
            #expect(try await server.http.request("GET", "v1/events", token: phone).status == 401)
            // Alice's laptop and Bob's phone (same device name, another tenant) go on.
            #expect(try await server.http.request("POST", "v1/events", token: laptop, body: HTTP.pushBody(second)).status == 200)
            #expect(try await server.http.pullAll(token: bob).count == 2)
            let listed = try await Self.devicesJSON("alice", on: server)
            #expect(listed.map { $0["revoked"] as? Bool } == [false, true])

            _ = try await Self.operate(["reinstate", "alice", "phone"], on: server)
            #expect(try await server.http.pullAll(token: phone).count == 5)
            let metrics = try await server.http.request("GET", "metrics", token: nil).text
            #expect(ServerMetricsTests.sample(#"chronicle_auth_refusals_total{reason="revoked_device"}"#, in: metrics) == 2)
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }

    @Test("a device revoked through the database is refused by every `chronicle serve` process sharing it")
    func revokedOnEveryInstance() async throws {
        let mint = try await JWTMint.make()
        defer { mint.remove() }
        let cluster = try await PostgresCluster.start()
        var servers: [ServerProcess] = []
        do {
            let flags = ["--database", cluster.url, "--jwt-hs256-secret-file", "hs-1=" + mint.keys.appending("hs.secret"),
                         "--jwt-jwks", mint.keys.appending("jwks.json"), "--jwt-issuer", "https://id.test/",
                         "--jwt-audience", "chronicle", "--jwt-device-claim", "device_id"]
            for _ in 0..<3 { servers.append(try await ServerProcess.start(flags)) }
            let phone = try await mint.token(tenant: "alice", device: "phone")
            let tablet = try await mint.token("HS256", kid: "hs-1", tenant: "alice", device: "tablet")
            let events = try await ServerTests.events(2)
            for server in servers {
                #expect(try await server.http.request("POST", "v1/events", token: phone, body: HTTP.pushBody(events)).status == 200)
            }
            let chronicle = try Products.chronicle()
            let revoke = try await runCommand(chronicle, ["server", "revoke", "alice", "phone", "--database", cluster.url])
            #expect(revoke.exit.status == 0, "\(revoke.standardError)")
            for server in servers {
                let push = try await server.http.request("POST", "v1/events", token: phone, body: HTTP.pushBody(try await ServerTests.events(1)))
                #expect(push.status == 401)
                #expect(push.object["reason"] as? String == "revoked_device")
                #expect(try await server.http.request("GET", "v1/events", token: phone).status == 401)
                #expect(try await server.http.pullAll(token: tablet).count == 2)
                #expect(try await server.metric(#"chronicle_auth_refusals_total{reason="revoked_device"}"#) == 2)
            }
            let listed = try await runCommand(chronicle, ["server", "devices", "alice", "--json", "--database", cluster.url])
            let devices = try JSONSerialization.jsonObject(with: Data(listed.standardOutputText.utf8)) as? [[String: Any]] ?? []
            #expect(devices.map { $0["device"] as? String } == ["phone", "tablet"])
            #expect(devices.map { $0["revoked"] as? Bool } == [true, false])
            #expect(devices.map { $0["pulledPosition"] as? Int } == [0, 2])
            for server in servers { await server.stop() }
            await cluster.stop()
        } catch {
            for server in servers { await server.stop() }
            await cluster.stop()
            throw error
        }
    }

    @Test("a revoked device's store says so in sync status; the push stopped, its events pending")
    func statusSaysRevoked() async throws {
        let mint = try await JWTMint.make()
        defer { mint.remove() }
        let server = try await TestServer.start(tokens: [:], jwt: try mint.authentication())
        let store = try TemporaryFolder("client")
        defer { store.remove() }
        do {
            let phone = try await mint.token(tenant: "alice", device: "phone")
            let chronicle = try Products.chronicle()
            let log = try TestLog.open(store: store.path)
            try await TestLog.appendEvents(log, count: 4)
            log.close()
            let push = ["sync", "push", "--store", store.path, "--remote", server.url.absoluteString, "--token", phone]
            #expect(try await runCommand(chronicle, push).exit.status == 0)
            _ = try await Self.operate(["revoke", "alice", "phone"], on: server)
            let reopened = try TestLog.open(store: store.path)
            try await TestLog.appendEvents(reopened, count: 2)
            reopened.close()
            #expect(try await runCommand(chronicle, push).exit.status != 0)
            let text = try await runCommand(chronicle, ["sync", "status", "--store", store.path])
            #expect(text.standardOutput.contains { $0.hasPrefix("device: revoked") }, "\(text.standardOutputText)")
            let json = try await runCommand(chronicle, ["sync", "status", "--store", store.path, "--json"])
            let status = try JSONSerialization.jsonObject(with: Data(json.standardOutputText.utf8)) as? [String: Any] ?? [:]
            #expect(status["deviceRevoked"] as? Bool == true)
            #expect(status["pending"] as? Int == 2)
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }

    @Test("server token issues an HS256 JWT that serve accepts; operator commands refuse bad names with one line")
    func developmentToken() async throws {
        let mint = try await JWTMint.make()
        defer { mint.remove() }
        var jwt = try mint.authentication(issuer: nil, audience: nil, deviceClaim: "device")
        jwt.leeway = .zero
        let server = try await TestServer.start(tokens: [:], jwt: jwt)
        do {
            let chronicle = try Products.chronicle()
            let issued = try await runCommand(chronicle, ["server", "token", "--secret-file", mint.keys.appending("hs.secret"), "--kid", "hs-1",
                                                          "--tenant", "dev", "--device", "sim-1"])
            #expect(issued.exit.status == 0, "\(issued.standardError)")
            let token = try #require(issued.standardOutput.first)
            #expect(try await server.http.request("POST", "v1/events", token: token, body: HTTP.pushBody(try await ServerTests.events(1))).status == 200)
            #expect(try await server.running.server.api.storage.devices(of: "dev").map(\.device) == ["sim-1"])
            for arguments in [["revoke", "../x", "phone", "--data", server.data.path], ["revoke", "alice", "", "--data", server.data.path],
                              ["devices", "alice", "--data", server.data.path + "/nope"],
                              ["token", "--secret-file", mint.keys.appending("rsa.pem"), "--tenant", "dev"]] {
                let output = try await runCommand(chronicle, ["server"] + arguments)
                #expect(output.exit.status != 0, "\(arguments)")
                #expect(output.errorLines.count == 1 && output.errorLines[0].hasPrefix("error: "), "\(arguments): \(output.standardError)")
            }
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }
}

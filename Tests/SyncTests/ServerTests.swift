import ChronicleTestSupport
import ChronicleWire
import ChronicleSync
import ChronicleLog
import Foundation
import ChronicleServer
import ChronicleServerLMDB
import Testing

/// The reference server spoken to directly, as a third-party client would.
@Suite("Reference server", .timeLimit(.minutes(5)))
struct ServerTests {
    /// A few wire events made by a real log (so they are valid), as a client would push them.
    static func events(_ count: Int) async throws -> [RecordedEvent] {
        let store = try TemporaryFolder("events")
        defer { store.remove() }
        let log = try TestLog.open(store: store.path)
        defer { log.close() }
        try await TestLog.appendEvents(log, count: count)
        return try TestLog.all(log)
    }

    @Test("GET /healthz answers 200")
    func health() async throws {
        try await withServerAndStore { server, _, _ in
            let reply = try await server.http.request("GET", "healthz", token: nil)
            #expect(reply.status == 200)
        }
    }

    @Test("a push stores each id once and answers accepted, duplicates and the last position", arguments: ServerBackend.allCases)
    func pushAndRepush(backend: ServerBackend) async throws {
        let events = try await Self.events(5)
        try await withServerAndStore(backend: backend) { server, _, _ in
            let first = try await server.http.request("POST", "v1/events", token: "token-a", body: HTTP.pushBody(events))
            #expect(first.status == 200)
            #expect(first.headers["content-type"]?.hasPrefix("application/json") == true)
            #expect(first.object["accepted"] as? Int == 5)
            #expect(first.object["duplicates"] as? Int == 0)
            #expect(first.object["lastPosition"] as? Int == 5)
            let again = try await server.http.request("POST", "v1/events", token: "token-a", body: HTTP.pushBody(events))
            #expect(again.object["accepted"] as? Int == 0)
            #expect(again.object["duplicates"] as? Int == 5)
            #expect(again.object["lastPosition"] as? Int == 5)
            let doubled = try await server.http.request("POST", "v1/events", token: "token-a",
                                                        body: HTTP.pushBody([events[0], events[0]]))
            #expect(doubled.object["accepted"] as? Int == 0)
            #expect(doubled.object["duplicates"] as? Int == 2)

            let stored = try await server.http.pullAll(token: "token-a")
            #expect(stored.map(\.wireForm) == events.map(\.wireForm))
            #expect(stored.map(\.position) == [1, 2, 3, 4, 5])
        }
    }

    @Test("duplicate ids inside one batch are stored once", arguments: ServerBackend.allCases)
    func duplicatesInsideBatch(backend: ServerBackend) async throws {
        let events = try await Self.events(3)
        try await withServerAndStore(backend: backend) { server, _, _ in
            let reply = try await server.http.request("POST", "v1/events", token: "token-a",
                                                      body: HTTP.pushBody([events[0], events[1], events[0], events[2], events[1]]))
            #expect(reply.status == 200)
            #expect(reply.object["accepted"] as? Int == 3)
            #expect(reply.object["duplicates"] as? Int == 2)
            #expect(try await server.http.pullAll(token: "token-a").map(\.id) == events.map(\.id))
        }
    }

    @Test("a batch with one invalid event stores nothing and names the event", arguments: ServerBackend.allCases)
    func atomicBatch(backend: ServerBackend) async throws {
        let events = try await Self.events(3)
        var body = String(decoding: HTTP.pushBody(events), as: UTF8.self)
        body = body.replacingOccurrences(of: "\"version\":3", with: "\"version\":0")
        try await withServerAndStore(backend: backend) { server, _, _ in
            let reply = try await server.http.request("POST", "v1/events", token: "token-a", body: Data(body.utf8))
            #expect(reply.status == 400)
            let message = try #require(reply.errorMessage)
            #expect(message.contains("events[2]"))
            #expect(message.contains("version"))
            #expect(try await server.http.pullAll(token: "token-a").isEmpty)
        }
    }

    @Test("an impossible instant is refused and a real one served back exactly, by either storage", arguments: ServerBackend.allCases)
    func timestampsKeptExactly(backend: ServerBackend) async throws {
        let events = try await Self.events(1)
        let body = String(decoding: HTTP.pushBody(events), as: UTF8.self)
        let sent = Timestamp.format(milliseconds: events[0].timestampMilliseconds)
        try await withServerAndStore(backend: backend) { server, _, _ in
            for impossible in ["2026-02-31T00:00:00.000Z", "2026-12-31T23:59:60.000Z", "2026-11-22T02:30:00.1234Z"] {
                let reply = try await server.http.request("POST", "v1/events", token: "token-a",
                                                          body: Data(body.replacingOccurrences(of: sent, with: impossible).utf8))
                #expect(reply.status == 400, "\(impossible)")
            }
            #expect(try await server.http.pullAll(token: "token-a").isEmpty)
            for (given, served) in [("2028-02-29T23:59:59.999Z", "2028-02-29T23:59:59.999Z"), ("2000-02-29T00:00:00.1Z", "2000-02-29T00:00:00.100Z")] {
                let fresh = try await Self.events(1)
                let text = String(decoding: HTTP.pushBody(fresh), as: UTF8.self)
                    .replacingOccurrences(of: Timestamp.format(milliseconds: fresh[0].timestampMilliseconds), with: given)
                let reply = try await server.http.request("POST", "v1/events", token: "token-a", body: Data(text.utf8))
                #expect(reply.status == 200, "\(given): \(reply.status)")
                let stored = try #require(try await server.http.pullAll(token: "token-a").first { $0.id == fresh[0].id })
                #expect(Timestamp.format(milliseconds: stored.timestampMilliseconds) == served)
            }
        }
    }

    static let malformedBodies = [
        "", "not json", "{", "[]", #"{"device":"d"}"#, #"{"events":[]}"#, #"{"device":"d","events":{}}"#,
        #"{"device":"d","events":[1]}"#, #"{"device":"d","events":[],"extra":1}"#,
        #"{"device":"d","events":[{"id":"nope"}]}"#, #"{"device":"d","events":[]} trailing"#,
    ]

    @Test("malformed bodies get 400 with a JSON error and store nothing", arguments: ServerBackend.allCases)
    func malformed(backend: ServerBackend) async throws {
        try await withServerAndStore(backend: backend) { server, _, _ in
            for body in Self.malformedBodies {
                let reply = try await server.http.request("POST", "v1/events", token: "token-a", body: Data(body.utf8))
                #expect(reply.status == 400, "body \(body)")
                #expect(reply.errorMessage?.isEmpty == false, "body \(body)")
            }
            #expect(try await server.http.pullAll(token: "token-a").isEmpty)
        }
    }

    @Test("an empty batch is fine", arguments: ServerBackend.allCases)
    func emptyBatch(backend: ServerBackend) async throws {
        try await withServerAndStore(backend: backend) { server, _, _ in
            let reply = try await server.http.request("POST", "v1/events", token: "token-a",
                                                      body: Data(#"{"device":"d","events":[]}"#.utf8))
            #expect(reply.status == 200)
            #expect(reply.object["accepted"] as? Int == 0)
            #expect(reply.object["lastPosition"] as? Int == 0)
        }
    }

    @Test("a missing or unknown token gets 401 with a JSON error", arguments: ServerBackend.allCases)
    func unauthorized(backend: ServerBackend) async throws {
        let events = try await Self.events(1)
        try await withServerAndStore(backend: backend) { server, _, _ in
            for token in [nil, "nope", "token-"] as [String?] {
                let push = try await server.http.request("POST", "v1/events", token: token, body: HTTP.pushBody(events))
                #expect(push.status == 401)
                #expect(push.errorMessage?.isEmpty == false)
                #expect(push.headers["www-authenticate"] == (token == nil ? "Bearer" : #"Bearer error="invalid_token""#))
                let pull = try await server.http.request("GET", "v1/events", token: token)
                #expect(pull.status == 401)
            }
            #expect(try await server.http.pullAll(token: "token-a").isEmpty)
        }
    }

    @Test("a body that is not JSON by its content type gets 415 and stores nothing", arguments: ServerBackend.allCases)
    func unsupportedMediaType(backend: ServerBackend) async throws {
        let events = try await Self.events(2)
        try await withServerAndStore(backend: backend) { server, _, _ in
            for type in ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"] {
                let reply = try await server.http.request("POST", "v1/events", token: "token-a", contentType: type,
                                                          body: HTTP.pushBody(events))
                #expect(reply.status == 415)
                #expect(reply.errorMessage?.contains("application/json") == true)
            }
            let charset = try await server.http.request("POST", "v1/events", token: "token-a",
                                                        contentType: "Application/JSON; charset=utf-8", body: HTTP.pushBody(events))
            #expect(charset.status == 200)
            #expect(try await server.http.pullAll(token: "token-a").count == 2)
        }
    }

    @Test("a body over the size limit gets 413 and stores nothing", arguments: ServerBackend.allCases)
    func tooLarge(backend: ServerBackend) async throws {
        let events = try await Self.events(400)   // about 90 KB on the wire
        try await withServerAndStore(limits: SyncAPI.Limits(maxBodyBytes: 64 << 10), backend: backend) { server, _, _ in
            let reply = try await server.http.request("POST", "v1/events", token: "token-a", body: HTTP.pushBody(events))
            #expect(reply.status == 413)
            #expect(reply.errorMessage?.contains("larger than") == true)
            #expect(try await server.http.pullAll(token: "token-a").isEmpty)
            let fits = try await server.http.request("POST", "v1/events", token: "token-a",
                                                     body: HTTP.pushBody(Array(events.prefix(100))))
            #expect(fits.status == 200)
        }
    }

    @Test("the default limit refuses a 9 MiB body")
    func defaultLimit() async throws {
        try await withServerAndStore { server, _, _ in
            var body = Data(#"{"device":"d","events":[],"pad":""#.utf8)
            body.append(Data(repeating: UInt8(ascii: "x"), count: 9 << 20))
            body.append(Data(#""}"#.utf8))
            let reply = try await server.http.request("POST", "v1/events", token: "token-a", body: body)
            #expect(reply.status == 413)
        }
    }

    @Test("pull parameters are validated", arguments: ServerBackend.allCases)
    func pullValidation(backend: ServerBackend) async throws {
        try await withServerAndStore(backend: backend) { server, _, _ in
            for query in ["after=-1", "after=abc", "after=1.5", "limit=0", "limit=10001", "limit=x"] {
                let reply = try await server.http.request("GET", "v1/events?\(query)", token: "token-a")
                #expect(reply.status == 400, "query \(query)")
                #expect(reply.errorMessage?.isEmpty == false, "query \(query)")
            }
        }
    }

    @Test("pull pages: after and limit, lastPosition is the page's last event or the head", arguments: ServerBackend.allCases)
    func pullPages(backend: ServerBackend) async throws {
        let events = try await Self.events(10)
        try await withServerAndStore(backend: backend) { server, _, _ in
            _ = try await server.http.request("POST", "v1/events", token: "token-a", body: HTTP.pushBody(events))
            let page = try WireEvent.decodePage(try await server.http.request("GET", "v1/events?after=3&limit=4", token: "token-a").body)
            #expect(page.events.map(\.position) == [4, 5, 6, 7])
            #expect(page.events.map(\.id) == events[3..<7].map(\.id))
            #expect(page.lastPosition == 7)
            let end = try WireEvent.decodePage(try await server.http.request("GET", "v1/events?after=10", token: "token-a").body)
            #expect(end.events.isEmpty)
            #expect(end.lastPosition == 10)
        }
    }

    @Test("unknown routes get a JSON 404")
    func notFound() async throws {
        try await withServerAndStore { server, _, _ in
            let reply = try await server.http.request("GET", "v2/events", token: "token-a")
            #expect(reply.status == 404)
            #expect(reply.errorMessage?.isEmpty == false)
        }
    }

    @Test("two tenants: neither reads nor touches the other's events", arguments: ServerBackend.allCases)
    func tenantIsolation(backend: ServerBackend) async throws {
        let events = try await Self.events(6)
        try await withServerAndStore(tokens: ["alpha-secret-token": nil, "beta-secret-token": nil], backend: backend) { server, _, _ in
            let alpha = try await server.http.request("POST", "v1/events", token: "alpha-secret-token",
                                                      body: HTTP.pushBody(Array(events.prefix(4))))
            #expect(alpha.object["accepted"] as? Int == 4)
            #expect(try await server.http.pullAll(token: "beta-secret-token").isEmpty)

            // The same ids are new to the other tenant: deduplication is per tenant.
            let beta = try await server.http.request("POST", "v1/events", token: "beta-secret-token",
                                                     body: HTTP.pushBody(Array(events.suffix(3))))
            #expect(beta.object["accepted"] as? Int == 3)
            #expect(beta.object["lastPosition"] as? Int == 3)
            #expect(try await server.http.pullAll(token: "alpha-secret-token").map(\.id) == events.prefix(4).map(\.id))
            #expect(try await server.http.pullAll(token: "beta-secret-token").map(\.id) == events.suffix(3).map(\.id))
        }
    }

    @Test("the LMDB storage names each tenant's folder by a digest of its token: tokens never reach the disk")
    func tenantFolders() async throws {
        let events = try await Self.events(2)
        try await withServerAndStore(tokens: ["alpha-secret-token": nil, "beta-secret-token": nil]) { server, _, _ in
            for token in ["alpha-secret-token", "beta-secret-token"] {
                let reply = try await server.http.request("POST", "v1/events", token: token, body: HTTP.pushBody(events))
                #expect(reply.status == 200)
            }
            let tenants = try FileManager.default.contentsOfDirectory(atPath: server.data.appending("tenants")).sorted()
            #expect(tenants == [TokenTable.tenantName(forToken: "alpha-secret-token"),
                                TokenTable.tenantName(forToken: "beta-secret-token")].sorted())
            #expect(tenants.allSatisfy { !$0.contains("secret") })
        }
    }

    @Test("a tokens file maps several tokens to named tenants")
    func tokensFile() async throws {
        let folder = try TemporaryFolder("tokens")
        defer { folder.remove() }
        let path = folder.appending("tokens")
        try "# tenant token\nacme  acme-token-1\n\nacme acme-token-2\nglobex globex-token\n".write(toFile: path, atomically: true, encoding: .utf8)
        var table = TokenTable()
        try table.load(file: path)
        #expect(table.tenants == ["acme", "globex"])
        #expect(table.tenant(for: "acme-token-1") == "acme")
        #expect(table.tenant(for: "acme-token-2") == "acme")
        #expect(table.tenant(for: "globex-token") == "globex")
        #expect(table.tenant(for: "globex-toke") == nil)
        #expect(table.tenant(for: "") == nil)

        try "acme token extra\n".write(toFile: path, atomically: true, encoding: .utf8)
        var broken = TokenTable()
        #expect(throws: SyncServerError.self) { try broken.load(file: path) }
        do {
            try broken.load(file: path)
        } catch {
            #expect(error.description.hasSuffix("tokens:1: expected 'tenant token', found 3 field(s)"))
        }
        #expect(throws: SyncServerError.invalidTenant("../etc")) { try broken.add(token: "t", tenant: "../etc") }
        #expect(throws: SyncServerError.self) { try broken.add(token: "has space") }
    }

    @Test("a server without tokens refuses to start")
    func noTokens() throws {
        #expect(throws: SyncServerError.noTokens) {
            _ = try SyncServer(configuration: .init(tokens: TokenTable()), storage: LMDBEventStorage(dataDirectory: "/nonexistent"),
                               logger: Quiet.logger)
        }
    }

    @Test("a port already taken makes start fail instead of hanging")
    func portTaken() async throws {
        try await withServerAndStore { server, _, _ in
            let data = try TemporaryFolder("second")
            defer { data.remove() }
            var tokens = TokenTable()
            try tokens.add(token: "t")
            let second = try SyncServer(configuration: .init(port: server.running.port, tokens: tokens),
                                        storage: LMDBEventStorage(dataDirectory: data.path), logger: Quiet.logger)
            await #expect(throws: (any Error).self) { _ = try await second.start() }
        }
    }
}

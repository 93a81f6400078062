import ChronicleTestSupport
import ChronicleWire
import ChronicleLog
import Foundation
import Logging
import ChronicleServer
import ChronicleServerLMDB
import Testing

extension Reliability {
    /// The reference server under hostile and broken clients, over real sockets on 127.0.0.1:
    /// each request gets the right status, the server stays up (`/healthz` answers), and
    /// nothing reaches a tenant's log.
    @Suite("Server abuse", .timeLimit(.minutes(10)))
    struct ServerAbuseTests {
        static let alpha = "alpha-token-0123456789"
        static let beta = "beta-token-0123456789"

        /// A server for one test, with two tenants, `alpha` and `beta`.
        struct Server {
            let running: RunningSyncServer
            let data: String
            var port: Int { running.port }

            /// The tenant folders that exist (a tenant's log is created on its first accepted push or pull).
            func tenantFolders() throws -> [String] {
                let folder = data + "/tenants"
                guard FileManager.default.fileExists(atPath: folder) else { return [] }
                return try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            }
        }

        static func withServer(maxBodyBytes: Int = 64 << 10, idleTimeout: Duration = .seconds(30),
                               requestTimeout: Duration = .seconds(30), logs: LogCapture? = nil,
                               _ body: (Server) async throws -> Void) async throws {
            try await TemporaryFolder.with("server") { data in
                var tokens = TokenTable()
                try tokens.add(token: alpha, tenant: "alpha")
                try tokens.add(token: beta, tenant: "beta")
                var logger = logs.map { capture in Logger(label: "reliability-tests") { _ in capture } }
                    ?? Logger(label: "reliability-tests")
                logger.logLevel = logs == nil ? .critical : .notice
                let server = try SyncServer(
                    configuration: .init(host: "127.0.0.1", port: 0, tokens: tokens,
                                         limits: .init(maxBodyBytes: maxBodyBytes),
                                         idleTimeout: idleTimeout, requestTimeout: requestTimeout),
                    storage: LMDBEventStorage(dataDirectory: data, options: .init(noSync: true)),
                    logger: logger)
                let running = try await server.start()
                do {
                    try await body(Server(running: running, data: data))
                } catch {
                    try? await running.stop()
                    throw error
                }
                try await running.stop()
            }
        }

        // MARK: - Helpers

        /// Sends `bytes` on a fresh connection and reads one response (`nil`: closed without one).
        static func exchange(_ port: Int, _ bytes: [UInt8]) async throws -> HTTPReply? {
            try await onThread {
                let connection = try RawConnection(port: port)
                connection.send(bytes)
                return try connection.readResponse()
            }
        }

        static func push(_ port: Int, token: String?, contentType: String? = "application/json", body: [UInt8]) async throws -> HTTPReply? {
            var headers: [(String, String)] = []
            if let token { headers.append(("Authorization", "Bearer \(token)")) }
            if let contentType { headers.append(("Content-Type", contentType)) }
            return try await exchange(port, request("POST", "/v1/events", headers: headers, body: body))
        }

        /// Every event of `token`'s tenant.
        static func pull(_ port: Int, token: String) async throws -> [RecordedEvent] {
            let reply = try #require(try await exchange(port, request("GET", "/v1/events?after=0&limit=10000",
                                                                      headers: [("Authorization", "Bearer \(token)")])))
            try #require(reply.status == 200, "pull: \(reply.status) \(reply.text)")
            return try WireEvent.decodePage(Data(reply.body)).events
        }

        /// The server still answers.
        static func expectHealthy(_ server: Server, sourceLocation: SourceLocation = #_sourceLocation) async throws {
            let reply = try await exchange(server.port, request("GET", "/healthz"))
            #expect(reply?.status == 200, "the server stopped answering /healthz", sourceLocation: sourceLocation)
        }

        /// Valid wire events (what a client pushes).
        static func events(_ count: Int, data: String = "{}") -> [RecordedEvent] {
            (0..<count).map { n in
                RecordedEvent(position: 0, id: UUIDv7.make(), stream: "todo-\(n)", version: 1, type: "TodoCreated",
                              timestampMilliseconds: 1_795_321_203_193 + Int64(n), origin: "device-1", data: Data(data.utf8))
            }
        }

        static func body(_ events: [RecordedEvent], device: String = "device-1") -> [UInt8] {
            Array(WirePush.encode(device: device, events: events))
        }

        /// A push body whose single event carries `data` as its payload, spliced in as raw bytes.
        static func body(rawData data: [UInt8]) -> [UInt8] {
            let template = String(decoding: body(events(1, data: #"{"x":"DATA"}"#)), as: UTF8.self)
            let parts = template.components(separatedBy: #"{"x":"DATA"}"#)
            return Array(parts[0].utf8) + data + Array(parts[1].utf8)
        }

        // MARK: - Tests

        @Test("bodies over the limit get 413, declared or streamed, and store nothing")
        func oversizedBodies() async throws {
            try await Self.withServer { server in
                let big = Self.body(Self.events(1, data: "{\"pad\":\"" + String(repeating: "x", count: 100 << 10) + "\"}"))
                let declared = try await Self.push(server.port, token: Self.alpha, body: big)
                #expect(declared?.status == 413)
                #expect(declared?.errorMessage?.contains("larger than 65536 bytes") == true)

                // Chunked: no length up front, so the limit is found while reading.
                var chunked = Array("POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.alpha)\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
                for start in stride(from: 0, to: big.count, by: 8192) {
                    let chunk = big[start..<min(big.count, start + 8192)]
                    chunked += Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10]
                }
                chunked += Array("0\r\n\r\n".utf8)
                let streamed = try await Self.exchange(server.port, chunked)
                #expect(streamed?.status == 413)

                // A length that lies far beyond the limit is refused before any byte of the body.
                let lying = Array("POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.alpha)\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n{}".utf8)
                #expect(try await Self.exchange(server.port, lying)?.status == 413)

                try await Self.expectHealthy(server)
                #expect(try server.tenantFolders().isEmpty, "a refused push opened a tenant's log")
                #expect(try await Self.pull(server.port, token: Self.alpha).isEmpty)
            }
        }

        @Test("deeply nested JSON gets 400 without exhausting the stack, and stores nothing")
        func deeplyNestedJSON() async throws {
            try await Self.withServer(maxBodyBytes: 1 << 20) { server in
                let depth = 60_000
                let cases: [(String, [UInt8])] = [
                    ("arrays in data", Self.body(rawData: Array("{\"a\":".utf8) + Array(repeating: UInt8(ascii: "["), count: depth)
                                                  + Array(repeating: UInt8(ascii: "]"), count: depth) + [UInt8(ascii: "}")])),
                    ("objects in data", Self.body(rawData: Array(String(repeating: "{\"a\":", count: 5_000).utf8) + Array("1".utf8)
                                                   + Array(repeating: UInt8(ascii: "}"), count: 5_000))),
                    ("arrays as the body", Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)),
                    ("arrays as the events", Array("{\"device\":\"d\",\"events\":".utf8) + Array(repeating: UInt8(ascii: "["), count: depth)),
                    ("one level too deep", Self.body(rawData: Array(String(repeating: "{\"a\":", count: 129).utf8) + Array("1".utf8)
                                                      + Array(repeating: UInt8(ascii: "}"), count: 129))),
                ]
                for (name, body) in cases {
                    let reply = try await Self.push(server.port, token: Self.alpha, body: body)
                    #expect(reply?.status == 400, "\(name): \(String(describing: reply?.status)) \(reply?.text ?? "")")
                    #expect(reply?.errorMessage?.isEmpty == false, "\(name)")
                }
                try await Self.expectHealthy(server)
                #expect(try server.tenantFolders().isEmpty)
                // The depth limit is not stingy: 128 levels are fine.
                let deepest = Self.body(rawData: Array(String(repeating: "{\"a\":", count: 128).utf8) + Array("1".utf8)
                                        + Array(repeating: UInt8(ascii: "}"), count: 128))
                #expect(try await Self.push(server.port, token: Self.beta, body: deepest)?.status == 200)
                #expect(try await Self.pull(server.port, token: Self.alpha).isEmpty)
            }
        }

        @Test("invalid UTF-8 anywhere in a body gets 400 and stores nothing")
        func invalidUTF8() async throws {
            try await Self.withServer { server in
                let valid = String(decoding: Self.body(Self.events(1, data: #"{"note":"MARK"}"#)), as: UTF8.self)
                let sequences: [[UInt8]] = [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80]]
                for bad in sequences {
                    for marker in ["MARK", "device-1\",\"events", "TodoCreated", "todo-0"] {
                        let parts = valid.components(separatedBy: marker)
                        let body = Array(parts[0].utf8) + bad + Array(marker.utf8) + Array(parts.dropFirst().joined(separator: marker).utf8)
                        let reply = try await Self.push(server.port, token: Self.alpha, body: body)
                        #expect(reply?.status == 400, "\(bad) before \(marker): \(String(describing: reply?.status))")
                    }
                }
                try await Self.expectHealthy(server)
                #expect(try server.tenantFolders().isEmpty)
            }
        }

        @Test("a wrong or missing content type gets 415 and stores nothing")
        func wrongContentType() async throws {
            try await Self.withServer { server in
                let body = Self.body(Self.events(2))
                for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp",
                             "application/json-seq", nil] as [String?] {
                    let reply = try await Self.push(server.port, token: Self.alpha, contentType: type, body: body)
                    #expect(reply?.status == 415, "\(type ?? "no content type"): \(String(describing: reply?.status))")
                    #expect(reply?.errorMessage?.contains("application/json") == true)
                }
                try await Self.expectHealthy(server)
                #expect(try server.tenantFolders().isEmpty)
            }
        }

        @Test("duplicate ids inside one batch are stored once")
        func duplicateIdsInOneBatch() async throws {
            try await Self.withServer { server in
                let events = Self.events(3)
                let batch = [events[0], events[1], events[0], events[2], events[1], events[0]]
                let reply = try #require(try await Self.push(server.port, token: Self.alpha, body: Self.body(batch)))
                #expect(reply.status == 200)
                #expect(reply.object["accepted"] as? Int == 3)
                #expect(reply.object["duplicates"] as? Int == 3)
                #expect(try await Self.pull(server.port, token: Self.alpha).map(\.id) == events.map(\.id))
            }
        }

        @Test("a tenant never sees or touches another tenant's events, whatever the body claims")
        func tenantIsolation() async throws {
            try await Self.withServer { server in
                // Alpha's token pushing events that claim to come from beta's device.
                let events = Self.events(2).map { event -> RecordedEvent in
                    var event = event
                    event.origin = "beta-device"
                    return event
                }
                let pushed = try await Self.push(server.port, token: Self.alpha, body: Self.body(events, device: "beta-device"))
                #expect(pushed?.status == 200)
                #expect(try await Self.pull(server.port, token: Self.beta).isEmpty)
                // The same id is new to beta: deduplication, like everything else, is per tenant.
                let again = try #require(try await Self.push(server.port, token: Self.beta, body: Self.body([events[0]])))
                #expect(again.object["accepted"] as? Int == 1)
                #expect(again.object["lastPosition"] as? Int == 1)
                #expect(try await Self.pull(server.port, token: Self.alpha).map(\.id) == events.map(\.id))
                #expect(try await Self.pull(server.port, token: Self.beta).map(\.id) == [events[0].id])
                #expect(try server.tenantFolders() == ["alpha", "beta"])
            }
        }

        @Test("unknown, malformed and missing tokens get 401 and store nothing")
        func unknownTokens() async throws {
            try await Self.withServer { server in
                let body = Self.body(Self.events(1))
                let authorizations: [String?] = [
                    nil, "Bearer", "Bearer ", "Bearer nope", "Basic YWxwaGE6", "Bearer \(Self.alpha)x", "Bearer \(Self.alpha) extra",
                    "Bearer " + String(Self.alpha.dropLast()), "Bearer " + String(repeating: "k", count: 8000), "\(Self.alpha)",
                ]
                for authorization in authorizations {
                    var headers = [("Content-Type", "application/json")]
                    if let authorization { headers.append(("Authorization", authorization)) }
                    let push = try await Self.exchange(server.port, request("POST", "/v1/events", headers: headers, body: body))
                    #expect(push?.status == 401, "push with '\(authorization?.prefix(40) ?? "none")': \(String(describing: push?.status))")
                    #expect(push?.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
                    let pull = try await Self.exchange(server.port, request("GET", "/v1/events", headers: headers.filter { $0.0 == "Authorization" }))
                    #expect(pull?.status == 401)
                }
                try await Self.expectHealthy(server)
                #expect(try server.tenantFolders().isEmpty, "an unauthenticated request opened a tenant's log")
            }
        }

        /// Sends `bytes` one a second (the server's reaction paces it: each wait ends early when
        /// the server closes); returns how many were sent before the server dropped the connection,
        /// or `nil` when it never did.
        static func trickle(_ port: Int, head: [UInt8], trickled: [UInt8]) async throws -> Int? {
            try await onThread {
                let connection = try RawConnection(port: port)
                connection.send(head)
                for (index, byte) in trickled.enumerated() {
                    guard connection.send([byte]) else { return index }
                    if connection.serverActs(within: 1000) {
                        _ = try? connection.readToEnd()
                        return index + 1
                    }
                }
                return nil
            }
        }

        @Test("a client sending its request head one byte a second is dropped by the idle timeout")
        func slowHeaders() async throws {
            try await Self.withServer(idleTimeout: .seconds(2), requestTimeout: .seconds(120)) { server in
                let whole = request("POST", "/v1/events", headers: [("Authorization", "Bearer \(Self.alpha)"),
                                                                    ("Content-Type", "application/json")], body: Self.body(Self.events(1)))
                let sent = try await Self.trickle(server.port, head: [], trickled: whole)
                let count = try #require(sent, "the server never dropped a client trickling \(whole.count) bytes")
                #expect(count < 30, "dropped only after \(count) bytes")
                try await Self.expectHealthy(server)
                #expect(try server.tenantFolders().isEmpty)
            }
        }

        @Test("a client sending its body one byte a second is dropped by the request timeout")
        func slowBody() async throws {
            // The idle timeout is far away: each byte is activity, only the request timeout can end it.
            try await Self.withServer(idleTimeout: .seconds(120), requestTimeout: .seconds(2)) { server in
                let body = Self.body(Self.events(1))
                let head = request("POST", "/v1/events", headers: [("Authorization", "Bearer \(Self.alpha)"),
                                                                   ("Content-Type", "application/json")])
                    .dropLast(2)   // the blank line: the length goes before it
                let fullHead = Array(head) + Array("Content-Length: \(body.count)\r\n\r\n".utf8)
                let sent = try await Self.trickle(server.port, head: fullHead, trickled: body)
                let count = try #require(sent, "the server never dropped a client trickling a \(body.count)-byte body")
                #expect(count < 30, "dropped only after \(count) bytes")
                try await Self.expectHealthy(server)
                #expect(try await Self.pull(server.port, token: Self.alpha).isEmpty)
            }
        }

        @Test("1,000 concurrent connections, 100 of them pushing the same batch: all answered, stored once, server still up")
        func thousandConcurrentConnections() async throws {
            try await Self.withServer(idleTimeout: .seconds(60), requestTimeout: .seconds(60)) { server in
                let events = Self.events(3)
                let push = request("POST", "/v1/events", headers: [("Authorization", "Bearer \(Self.alpha)"),
                                                                   ("Content-Type", "application/json")], body: Self.body(events))
                let health = request("GET", "/healthz")
                let port = server.port
                let replies = try await onThread { () -> [HTTPReply?] in
                    // Every connection is open before the first request goes out. One in ten pushes
                    // (a thousand debug-build pushes would hog the machine the other tests share).
                    let connections = try (0..<1000).map { _ in try RawConnection(port: port, timeout: 60) }
                    for (index, connection) in connections.enumerated() { connection.send(index % 10 == 0 ? push : health) }
                    return try connections.map { try $0.readResponse() }
                }
                #expect(replies.count == 1000)
                #expect(replies.allSatisfy { $0?.status == 200 }, "statuses: \(Set(replies.map { $0?.status }))")
                let pushes = replies.enumerated().filter { $0.offset % 10 == 0 }.map(\.element)
                #expect(pushes.reduce(0) { $0 + ($1?.object["accepted"] as? Int ?? 0) } == 3)
                #expect(pushes.reduce(0) { $0 + ($1?.object["duplicates"] as? Int ?? 0) } == 297)
                try await Self.expectHealthy(server)
                #expect(try await Self.pull(server.port, token: Self.alpha).map(\.id) == events.map(\.id))
            }
        }

        @Test("1,000 idle connections are closed by the server, which keeps answering")
        func thousandIdleConnections() async throws {
            try await Self.withServer(idleTimeout: .seconds(1), requestTimeout: .seconds(30)) { server in
                let port = server.port
                let closed = try await onThread { () -> Int in
                    let connections = try (0..<1000).map { _ in try RawConnection(port: port, timeout: 60) }
                    // Each read ends when the server closes its side (it never sends anything).
                    return try connections.filter { try $0.readToEnd().isEmpty }.count
                }
                #expect(closed == 1000)
                try await Self.expectHealthy(server)
            }
        }

        @Test("300 fuzzed push bodies over HTTP: only 200 or 400, never a server error")
        func fuzzedBodiesOverHTTP() async throws {
            try await Self.withServer { server in
                var random = TestSeed.generator(for: "ServerAbuseTests.fuzzedBodiesOverHTTP")
                let bases = (0..<30).map { _ in FuzzTests.randomPush(&random) }
                var statuses: [Int: Int] = [:]
                for round in 0..<300 {
                    let body = FuzzTests.mutate(bases[round % bases.count], &random)
                    let reply = try await Self.push(server.port, token: Self.beta, body: body)
                    statuses[reply?.status ?? 0, default: 0] += 1
                }
                #expect(Set(statuses.keys).isSubset(of: [200, 400]), "\(statuses)")
                #expect(statuses[400, default: 0] > 100)
                try await Self.expectHealthy(server)
            }
        }
    }
}

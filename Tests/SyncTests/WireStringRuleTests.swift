import ChronicleTestSupport
import ChronicleWire
import ChronicleLog
import Foundation
import Logging
import ChronicleServer
import ChronicleServerPostgres
import Synchronization
import Testing

/// The two storages answer alike, and never with their insides: one rule for every string the
/// wire carries (no NUL), `data` kept as its bytes, 5xx bodies that say only "try again later",
/// and 405 for any method a path does not take (issue 41, point 8).
@Suite("Wire strings and error bodies, alike on both storages", .timeLimit(.minutes(10)))
struct WireStringRuleTests {
    /// `"o\u0000x"` as JSON text: valid JSON, a NUL once decoded.
    static let nul = #"o\u0000x"#

    /// A pushed event's JSON; the strings are JSON text, their escapes kept as written.
    static func event(type: String = "TodoCreated", origin: String = "device-1", stream: String = "todo-1",
                      data: String = #"{"title":"Milk"}"#) -> String {
        #"{"id":"\#(UUID().uuidString.lowercased())","stream":"\#(stream)","version":1,"type":"\#(type)","#
            + #""timestamp":"2026-11-22T02:30:00.123Z","origin":"\#(origin)","data":\#(data)}"#
    }

    static func push(_ events: [String], device: String = "device-1") -> Data {
        Data((#"{"device":"\#(device)","events":["# + events.joined(separator: ",") + "]}").utf8)
    }

    /// A server on each storage, both knowing `token-a` (tenant `alpha`), stopped afterwards.
    static func withServers(_ body: ([(ServerBackend, TestServer)]) async throws -> Void) async throws {
        var servers: [(ServerBackend, TestServer)] = []
        do {
            for backend in ServerBackend.allCases {
                servers.append((backend, try await TestServer.start(tokens: ["token-a": "alpha"], backend: backend)))
            }
            try await body(servers)
        } catch {
            for (_, server) in servers { try? await server.stop() }
            throw error
        }
        for (_, server) in servers { try await server.stop() }
    }

    // MARK: - One rule for every string

    @Test("a NUL in type, origin, stream or device: 400 with the same message from either storage, nothing of the batch stored")
    func nulRefusedAlike() async throws {
        let cases: [(body: Data, message: String)] = [
            (Self.push([Self.event(), Self.event(type: Self.nul)]), #"events[1]: "type" must not contain NUL (U+0000)"#),
            (Self.push([Self.event(), Self.event(origin: Self.nul)]), #"events[1]: "origin" must not contain NUL (U+0000)"#),
            (Self.push([Self.event(), Self.event(stream: Self.nul)]), "events[1]: invalid event: stream name must not contain NUL"),
            (Self.push([Self.event()], device: Self.nul), #""device" must not contain NUL (U+0000)"#),
        ]
        try await Self.withServers { servers in
            for (body, message) in cases {
                for (backend, server) in servers {
                    let reply = try await server.http.request("POST", "v1/events", token: "token-a", body: body)
                    #expect(reply.status == 400, "\(backend): \(reply.status) \(reply.text)")
                    #expect(reply.errorMessage == message, "\(backend): \(reply.text)")
                }
            }
            for (backend, server) in servers {
                #expect(try await server.http.pullAll(token: "token-a").isEmpty, "\(backend)")
            }
        }
    }

    @Test("NUL escapes inside data, in a value and in a name, are stored and served back byte for byte by either storage")
    func nulInsideDataKeptAlike() async throws {
        let data = #"{"note":"a\u0000b","\u0000":["\u0000",{"k\u0000":"\u0000\u0000"}]}"#
        let body = Self.push([Self.event(data: data)])
        try await Self.withServers { servers in
            for (backend, server) in servers {
                let reply = try await server.http.request("POST", "v1/events", token: "token-a", body: body)
                #expect(reply.status == 200, "\(backend): \(reply.status) \(reply.text)")
                #expect(reply.object["accepted"] as? Int == 1, "\(backend): \(reply.text)")
                let stored = try await server.http.pullAll(token: "token-a")
                #expect(stored.map(\.data) == [Data(data.utf8)], "\(backend)")
            }
        }
    }

    @Test("each storage refuses a NUL in type or origin itself, with the same error, when it is handed one past the wire")
    func storagesRefuseAlike() async throws {
        let id = UUID()
        func event(type: String = "TodoCreated", origin: String = "device-1") -> ForeignEvent {
            ForeignEvent(id: id, stream: "todo-1", version: 1, type: type, timestampMilliseconds: 0, origin: origin, data: Data("{}".utf8))
        }
        try await Self.withServers { servers in
            for (backend, server) in servers {
                let storage = server.running.server.api.storage
                for (bad, message) in [(event(type: "o\u{0}x"), "event type must not contain NUL (event \(id))"),
                                       (event(origin: "o\u{0}x"), "event origin must not contain NUL (event \(id))")] {
                    await #expect(throws: EventStorageError.invalidEvent(message), "\(backend)") {
                        _ = try await storage.append([bad], for: "alpha")
                    }
                }
                let page = try await storage.events(of: "alpha", after: 0, limit: 10, maxBytes: .max)
                #expect(page.events.isEmpty, "\(backend)")
            }
        }
    }

    @Test("every reader of wire events holds them to the rule: a pulled page, an exported line (`chronicle import`)")
    func everyReaderRefuses() throws {
        let line = Self.event(type: Self.nul)
        #expect(throws: WireEventError(#"event: "type" must not contain NUL (U+0000)"#)) {
            _ = try WireEvent.decodeExported(Data(line.utf8))
        }
        let positioned = #"{"position":1,"# + Self.event(origin: Self.nul).dropFirst()
        #expect(throws: WireEventError(#"events[0]: "origin" must not contain NUL (U+0000)"#)) {
            _ = try WireEvent.decodePage(Data((#"{"events":["# + positioned + #"],"lastPosition":1}"#).utf8))
        }
    }

    // MARK: - Error bodies

    /// What a server's answer must never carry of a failure: where the database is, who the
    /// server is to it, and the code that failed.
    static func leaks(in text: String, _ secrets: [String]) -> [String] {
        (secrets + [".swift", "line", "PSQL", "SQLSTATE"]).filter { text.localizedCaseInsensitiveContains($0) }
    }

    @Test("PostgreSQL stopped under the server: 503, Retry-After, the fixed message naming no host, port, user or file; the log has them")
    func postgresDownAnswersNothingOfItsInsides() async throws {
        try await PostgresCluster.with { cluster in
            let logs = LogLines()
            var tokens = TokenTable()
            try tokens.add(token: "token-a", tenant: "alpha")
            // A short operation timeout, so that each request to the stopped cluster gives up soon;
            // on a busy machine the server's start and first push may take longer: tried again,
            // for up to 90 s (a machine running two suites at once took 50).
            let givingUp = ContinuousClock.now + .seconds(90)
            func start() async throws -> RunningSyncServer {
                let storage = try PostgresEventStorage(url: cluster.url, operationTimeout: .seconds(3), logger: Quiet.logger)
                do {
                    return try await SyncServer(configuration: .init(host: "127.0.0.1", port: 0, tokens: tokens),
                                                storage: storage, logger: logs.logger).start()
                } catch EventStorageError.unavailable where ContinuousClock.now < givingUp {
                    return try await start()
                }
            }
            let server = try await start()
            try await Self.withStopping(server) {
                let http = HTTP(base: server.url)
                var first = try await http.request("POST", "v1/events", token: "token-a", body: Self.push([Self.event()]))
                while first.status == 503, ContinuousClock.now < givingUp {
                    first = try await http.request("POST", "v1/events", token: "token-a", body: Self.push([Self.event()]))
                }
                #expect(first.status == 200, "\(first.text)")
                try await cluster.stopServer()
                let secrets = ["127.0.0.1", "\(cluster.port)", "postgres"]
                for (method, path, body) in [("POST", "v1/events", Self.push([Self.event()])), ("GET", "v1/events?after=0", nil)] {
                    let reply = try await http.request(method, path, token: "token-a", body: body)
                    #expect(reply.status == 503, "\(method): \(reply.status) \(reply.text)")
                    #expect(reply.headers["retry-after"] == "1", "\(method): \(reply.headers)")
                    #expect(reply.errorMessage == "the server's storage is unavailable; try again later", "\(method): \(reply.text)")
                    #expect(Self.leaks(in: reply.text, secrets).isEmpty, "\(method): \(reply.text)")
                }
                // The operator still learns where and why.
                #expect(logs.all.contains { $0.contains("\(cluster.port)") && $0.contains("503") }, "\(logs.all)")
            }
        }
    }

    /// Runs `body`, then stops `server` whatever happens.
    static func withStopping(_ server: RunningSyncServer, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test("a storage failing with its insides in the error: 503 or 500 with a fixed message, the details in the log only",
          arguments: [true, false])
    func failuresAnswerFixedMessages(unavailable: Bool) async throws {
        let insides = "postgres://chronicle@db.internal:6543/events: PSQLError at PostgresAppend.swift line 42"
        let failure: any Error = unavailable ? EventStorageError.unavailable(insides) : LeakyStorage.DriverError(description: insides)
        let logs = LogLines()
        var tokens = TokenTable()
        try tokens.add(token: "token-a", tenant: "alpha")
        let running = try await SyncServer(configuration: .init(host: "127.0.0.1", port: 0, tokens: tokens),
                                           storage: LeakyStorage(failure: failure), logger: logs.logger).start()
        try await Self.withStopping(running) {
            let http = HTTP(base: running.url)
            for (method, path, body) in [("POST", "v1/events", Self.push([Self.event()])), ("GET", "v1/events", nil)] {
                let reply = try await http.request(method, path, token: "token-a", body: body)
                #expect(reply.status == (unavailable ? 503 : 500), "\(method): \(reply.text)")
                #expect(reply.errorMessage == (unavailable ? "the server's storage is unavailable; try again later"
                                                           : "internal server error; try again later"), "\(method): \(reply.text)")
                #expect(Self.leaks(in: reply.text, ["db.internal", "6543", "chronicle@", "events:"]).isEmpty, "\(method): \(reply.text)")
            }
            #expect(logs.all.contains { $0.contains("db.internal:6543") && $0.contains("PostgresAppend.swift") }, "\(logs.all)")
        }
    }

    // MARK: - Methods

    @Test("any method a path does not take (QUERY, DELETE, PROPFIND, …) is 405 with Allow on every route; an unknown path stays 404")
    func everyMethodNotTakenIs405() async throws {
        let server = try await TestServer.start(tokens: ["token-a": "alpha"])
        do {
            let routes = [("healthz", "GET, HEAD"), ("openapi.yaml", "GET, HEAD"), ("metrics", "GET"), ("v1/events", "GET, POST")]
            for (path, allow) in routes {
                for method in ["QUERY", "DELETE", "PROPFIND", "SEARCH", "PUT", "PATCH", "TRACE"] {
                    let reply = try await server.http.request(method, path, token: "token-a")
                    #expect(reply.status == 405, "\(method) /\(path): \(reply.status) \(reply.text)")
                    #expect(reply.headers["allow"] == allow, "\(method) /\(path): \(reply.headers)")
                    #expect(reply.errorMessage == "\(method) is not allowed on /\(path): use \(allow)", "\(method) /\(path)")
                }
            }
            // Paths as the router matches them: a trailing slash does not count.
            #expect(try await server.http.request("GET", "healthz/", token: nil).status == 200)
            #expect(try await server.http.request("QUERY", "healthz/", token: nil).status == 405)
            for path in ["nowhere", "v1/events/x", "v1"] {
                let reply = try await server.http.request("QUERY", path, token: "token-a")
                #expect(reply.status == 404, "QUERY /\(path): \(reply.status) \(reply.text)")
                #expect(reply.headers["allow"] == nil)
            }
            // A method HTTP/1.1's parser does not know is a malformed request, refused before any route.
            let madeUp = try await server.http.request("BREW", "healthz", token: nil)
            #expect(madeUp.status == 400, "\(madeUp.text)")
            #expect(madeUp.errorMessage?.contains("invalid HTTP method") == true, "\(madeUp.text)")
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }
}

/// A storage whose every read and write fails with `failure`, as a driver's error that names
/// everything would; tokens all map to `alpha`.
struct LeakyStorage: EventStorage {
    struct DriverError: Error, CustomStringConvertible { var description: String }

    let failure: any Error
    var description: String { "leaky" }

    func prepare(tokens: TokenTable) async throws {}
    func tenant(forToken token: String) async throws -> String? { "alpha" }
    func append(_ events: [ForeignEvent], for tenant: String) async throws -> IngestResult { throw failure }
    func events(of tenant: String, after position: UInt64, limit: Int, maxBytes: Int) async throws -> EventPage { throw failure }
    func close() async {}
}

/// What a server logs, each entry as one line with its metadata.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    var logger: Logger {
        var logger = Logger(label: "wire-string-rule") { _ in Handler(lines: self) }
        logger.logLevel = .notice
        return logger
    }

    struct Handler: LogHandler {
        let lines: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .notice

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let line = "\(event.level) \(event.message) " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            lines.lines.withLock { $0.append(line) }
        }
    }
}

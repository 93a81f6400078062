import ArgumentParser
import Foundation
import ChronicleServer
import ChronicleServerLMDB
import ChronicleServerPostgres
/// `chronicle serve`: the reference sync server (SPEC §5).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the reference sync server (embedded, or many processes on one PostgreSQL database); stops gracefully on SIGINT/SIGTERM.")

    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on; 0 picks a free one (printed when listening).") var port = 8080
    @Option(help: "Where the tenants' logs live (default: $CHRONICLE_SERVER_DATA, else ./.chronicle-server; never a client store).")
    var data: String?
    @Option(help: ArgumentHelp("Keep tenants, tokens and events in this PostgreSQL database (postgres://user[:password]@host[:port]/database; default: $CHRONICLE_DATABASE_URL). Any number of servers may share it.", valueName: "url"))
    var database: String?
    @Flag(inversion: .prefixedNo,
          help: "With --database: pushes NOTIFY and each server LISTENs, so waiting pulls wake on every server (--no-notify for a database without LISTEN: they then get events when their wait ends).")
    var notify = true
    @Option(help: "A bearer token; each one is its own tenant. Repeatable.") var token: [String] = []
    @Option(help: "A file of 'tenant token' lines (# comments allowed).") var tokensFile: String?
    @OptionGroup var jwt: JWTOptions
    @Option(help: "The largest request body accepted, in bytes.") var maxBodyBytes = 8 << 20
    @Option(help: "trace, debug, info, notice, warning, error or critical.") var logLevel = "info"
    @Option(help: "Close a connection silent for this many seconds.") var idleTimeout = 60
    @Option(help: "Close a connection whose request takes longer than this many seconds to arrive.") var requestTimeout = 120
    @Option(help: "The most pulls that may wait for events at once (503 with Retry-After beyond).") var maxWaiters = 10_000
    @Option(help: "The longest a pull waits for events, in seconds (0 to 60; a pull asking longer answers sooner).")
    var maxWait = SyncAPI.maxWaitSeconds

    func validate() throws {
        if database != nil, data != nil { throw ValidationError("--data and --database exclude each other: one storage per server") }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard maxBodyBytes >= 1024 else { throw ValidationError("--max-body-bytes must be at least 1024") }
        guard idleTimeout >= 1, requestTimeout >= 1 else {
            throw ValidationError("--idle-timeout and --request-timeout must be at least 1 second")
        }
        guard maxWaiters >= 1 else { throw ValidationError("--max-waiters must be at least 1") }
        guard (0...SyncAPI.maxWaitSeconds).contains(maxWait) else {
            throw ValidationError("--max-wait must be from 0 to \(SyncAPI.maxWaitSeconds) seconds")
        }
        try jwt.validate()
        guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(logLevel) else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    func run() async throws {
        var tokens = TokenTable()
        for token in self.token { try tokens.add(token: token) }
        if let tokensFile { try tokens.load(file: tokensFile) }
        let jwtAuthentication = try jwt.authentication()
        // A server's data is its own: never inside the store a client's $CHRONICLE_STORE names.
        let variables = ProcessInfo.processInfo.environment
        let environment = variables["CHRONICLE_SERVER_DATA"].flatMap { $0.isEmpty ? nil : $0 }
        let dataDirectory = data ?? environment ?? FileManager.default.currentDirectoryPath + "/.chronicle-server"
        let databaseURL = database ?? (data == nil ? variables["CHRONICLE_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 } : nil)
        let storage: any EventStorage
        if let databaseURL {
            do {
                storage = try PostgresEventStorage(url: databaseURL, notifications: notify)
            } catch {
                throw ValidationError("--database: \(error)")
            }
        } else {
            storage = LMDBEventStorage(dataDirectory: dataDirectory)
        }
        let configuration = SyncServer.Configuration(
            host: host, port: port, tokens: tokens, jwt: jwtAuthentication,
            limits: SyncAPI.Limits(maxBodyBytes: maxBodyBytes, maxWait: .seconds(maxWait), maxWaiters: maxWaiters),
            logLevel: .init(rawValue: logLevel) ?? .info,
            idleTimeout: .seconds(idleTimeout), requestTimeout: .seconds(requestTimeout))
        let server = try SyncServer(configuration: configuration, storage: storage)
        let announcer = Task {
            guard let port = try? await server.listeningPort() else { return }
            let shown = host.contains(":") ? "[\(host)]" : host
            let jwtNote = jwtAuthentication.map { ", JWT keys: \($0.keyIDs.count)" } ?? ""
            CLIOutput.line("listening on http://\(shown):\(port) (storage: \(storage), tenants: \(tokens.tenants.joined(separator: ", "))\(jwtNote))")
        }
        defer { announcer.cancel() }
        try await server.runUntilSignalled()
    }
}

import Chronicle
import ChronicleSync
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleProjections
import ChronicleServer
import ChronicleServerLMDB
import ChronicleServerPostgres
/// Chronicle's sync push and reference server, through the public APIs.
enum ChronicleWorkloads {
    static let token = "chronicle-bench-token"

    /// Pushes every event of a prepared log to the server at `task.url` with `SyncEngine.push()`.
    static func syncPush(_ task: ChildTask) async throws -> (Int, Double) {
        let log = try EventLog(path: task.source!)
        defer { log.close() }
        guard let url = task.url.flatMap(URL.init(string:)) else { throw BenchError.usage("sync-push needs a URL") }
        let engine = try SyncEngine(log: log, configuration: SyncConfiguration(remote: url, token: token))
        var watch = Stopwatch()
        let summary = try await watch.measureAsync { try await engine.push() }
        guard case .complete = summary.outcome else {
            throw BenchError.child("the push did not complete: \(summary.outcome)")
        }
        return (summary.eventsAcknowledged, watch.seconds)
    }

    /// Pulls every event from the server at `task.url` into a fresh store at `task.directory`
    /// and brings its read models up to date: events/s into a new device, merged and readable.
    static func syncPull(_ task: ChildTask) async throws -> (Int, Double) {
        let store = try ChronicleStore(directory: task.directory, backgroundProjections: false)
        guard let url = task.url.flatMap(URL.init(string:)) else { throw BenchError.usage("sync-pull needs a URL") }
        var watch = Stopwatch()
        let summary = try await watch.measureAsync {
            let summary = try await store.pull(SyncConfiguration(remote: url, token: token))
            try await store.refresh()
            return summary
        }
        await store.close()
        guard summary.outcome == .complete else {
            throw BenchError.child("the pull did not complete: \(summary.outcome)")
        }
        return (summary.stored, watch.seconds)
    }

    /// The reference server on a free loopback port, on LMDB in `task.directory` or on the
    /// PostgreSQL `task.database`; prints `port N` on stdout, then serves until SIGTERM.
    static func serve(_ task: ChildTask) async throws -> (Int, Double) {
        var tokens = TokenTable()
        try tokens.add(token: token, tenant: task.tenant)
        let storage: any EventStorage = if let database = task.database {
            // A generous timeout: on 2 cores the database shares the machine with the clients.
            try PostgresEventStorage(url: database, operationTimeout: .seconds(60))
        } else {
            LMDBEventStorage(dataDirectory: task.directory)
        }
        let server = try SyncServer(configuration: .init(host: "127.0.0.1", port: 0, tokens: tokens, logLevel: .warning),
                                    storage: storage)
        let running = Task { try await server.runUntilSignalled() }
        let port = try await server.listeningPort()
        FileHandle.standardOutput.write(Data("port \(port)\n".utf8))
        try await running.value
        return (0, 0)
    }
}

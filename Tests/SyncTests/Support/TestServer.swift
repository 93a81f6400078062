import ChronicleTestSupport
import ChronicleLog
import Foundation
import Logging
import ChronicleServer
import ChronicleServerLMDB
import ChronicleServerPostgres
import Testing

/// Where a test server keeps its events: the embedded LMDB storage, or PostgreSQL in a
/// cluster of the test's own (``PostgresCluster``).
enum ServerBackend: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case lmdb, postgres

    var testDescription: String { rawValue }
}

/// The reference server on a loopback ephemeral port, in a temporary data folder.
final class TestServer: Sendable {
    let running: RunningSyncServer
    let data: TemporaryFolder
    let cluster: PostgresCluster?

    var url: URL { running.url }
    var http: HTTP { HTTP(base: url) }

    /// Starts a server that knows `tokens` (token → tenant; `nil` tenant: named from the token).
    /// A server on `cluster`'s database, which other servers may share (the cluster is not its to stop);
    /// with `notifications: false`, its pushes notify no one and it listens to no one.
    static func start(tokens: [String: String?], sharing cluster: PostgresCluster, notifications: Bool = true,
                      limits: SyncAPI.Limits = SyncAPI.Limits(), jwt: JWTAuthentication? = nil) async throws -> TestServer {
        let data = try TemporaryFolder("server")
        do {
            var table = TokenTable()
            for (token, tenant) in tokens.sorted(by: { $0.key < $1.key }) { try table.add(token: token, tenant: tenant) }
            let storage = try PostgresEventStorage(url: cluster.url, operationTimeout: .seconds(60), notifications: notifications,
                                                   logger: Quiet.logger)
            let server = try SyncServer(configuration: .init(host: "127.0.0.1", port: 0, tokens: table, jwt: jwt, limits: limits),
                                        storage: storage, logger: Quiet.logger)
            return TestServer(running: try await server.start(), data: data, cluster: nil)
        } catch {
            data.remove()
            throw error
        }
    }

    static func start(tokens: [String: String?], limits: SyncAPI.Limits = SyncAPI.Limits(),
                      backend: ServerBackend = .lmdb, jwt: JWTAuthentication? = nil) async throws -> TestServer {
        let data = try TemporaryFolder("server")
        var cluster: PostgresCluster?
        do {
            var table = TokenTable()
            for (token, tenant) in tokens.sorted(by: { $0.key < $1.key }) { try table.add(token: token, tenant: tenant) }
            let storage: any EventStorage
            switch backend {
            case .lmdb:
                storage = LMDBEventStorage(dataDirectory: data.path, options: .init(noSync: true))
            case .postgres:
                let started = try await PostgresCluster.start()
                cluster = started
                storage = try PostgresEventStorage(url: started.url, operationTimeout: .seconds(60), logger: Quiet.logger)
            }
            let server = try SyncServer(configuration: .init(host: "127.0.0.1", port: 0, tokens: table, jwt: jwt, limits: limits),
                                        storage: storage, logger: Quiet.logger)
            return TestServer(running: try await server.start(), data: data, cluster: cluster)
        } catch {
            await cluster?.stop()
            data.remove()
            throw error
        }
    }

    private init(running: RunningSyncServer, data: TemporaryFolder, cluster: PostgresCluster?) {
        self.running = running
        self.data = data
        self.cluster = cluster
    }

    /// Shuts down gracefully (requests in flight finish) and removes the data.
    func stop() async throws {
        defer { data.remove() }
        try await running.stop()
        await cluster?.stop()
    }
}

enum Quiet {
    /// Logs only what would mean a broken test run; `SYNC_TESTS_LOG_LEVEL=debug` shows everything.
    static let logger: Logger = {
        var logger = Logger(label: "sync-tests")
        let level = ProcessInfo.processInfo.environment["SYNC_TESTS_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        logger.logLevel = level ?? .critical
        return logger
    }()
}

import EventLog
import Foundation
import Logging
import ServiceLifecycle
import SyncServer

/// The reference server on a loopback ephemeral port, in a temporary data folder.
final class TestServer: Sendable {
    let server: SyncServer
    let group: ServiceGroup
    let task: Task<Void, any Error>
    let port: Int
    let data: TemporaryDirectory

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var http: HTTP { HTTP(base: url) }

    /// Starts a server that knows `tokens` (token → tenant; `nil` tenant: named from the token).
    static func start(tokens: [String: String?], limits: SyncAPI.Limits = SyncAPI.Limits()) async throws -> TestServer {
        let data = try TemporaryDirectory("server")
        var table = TokenTable()
        for (token, tenant) in tokens.sorted(by: { $0.key < $1.key }) { try table.add(token: token, tenant: tenant) }
        let server = try SyncServer(
            configuration: .init(host: "127.0.0.1", port: 0, dataDirectory: data.path, tokens: table, limits: limits,
                                 logOptions: .init(noSync: true)),
            logger: Quiet.logger)
        let group = ServiceGroup(services: [server], logger: Quiet.logger)
        let task = Task { try await group.run() }
        do {
            let port = try await server.listeningPort()
            return TestServer(server: server, group: group, task: task, port: port, data: data)
        } catch {
            task.cancel()
            data.remove()
            throw error
        }
    }

    private init(server: SyncServer, group: ServiceGroup, task: Task<Void, any Error>, port: Int, data: TemporaryDirectory) {
        self.server = server
        self.group = group
        self.task = task
        self.port = port
        self.data = data
    }

    /// Shuts down gracefully (requests in flight finish) and removes the data.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
        data.remove()
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

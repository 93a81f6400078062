import EventLog
import Foundation
import Logging
import SyncServer

/// The reference server on a loopback ephemeral port, in a temporary data folder.
final class TestServer: Sendable {
    let running: RunningSyncServer
    let data: TemporaryDirectory

    var url: URL { running.url }
    var http: HTTP { HTTP(base: url) }

    /// Starts a server that knows `tokens` (token → tenant; `nil` tenant: named from the token).
    static func start(tokens: [String: String?], limits: SyncAPI.Limits = SyncAPI.Limits()) async throws -> TestServer {
        let data = try TemporaryDirectory("server")
        do {
            var table = TokenTable()
            for (token, tenant) in tokens.sorted(by: { $0.key < $1.key }) { try table.add(token: token, tenant: tenant) }
            let server = try SyncServer(
                configuration: .init(host: "127.0.0.1", port: 0, tokens: table, limits: limits),
                storage: LMDBEventStorage(dataDirectory: data.path, options: .init(noSync: true)),
                logger: Quiet.logger)
            return TestServer(running: try await server.start(), data: data)
        } catch {
            data.remove()
            throw error
        }
    }

    private init(running: RunningSyncServer, data: TemporaryDirectory) {
        self.running = running
        self.data = data
    }

    /// Shuts down gracefully (requests in flight finish) and removes the data.
    func stop() async throws {
        try await running.stop()
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

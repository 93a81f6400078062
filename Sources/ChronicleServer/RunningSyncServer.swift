import Foundation
import Logging
import ServiceLifecycle

/// A ``SyncServer`` started in the background, for tests and `chronicle demo`.
///
/// ```swift
/// let running = try await SyncServer(configuration: .init(port: 0, tokens: tokens),
///                                    storage: LMDBEventStorage(dataDirectory: dir)).start()
/// print(running.url)          // http://127.0.0.1:41234
/// try await running.stop()    // graceful: requests in flight finish
/// ```
public final class RunningSyncServer: Sendable {
    /// The server being run.
    public let server: SyncServer
    /// The bound port (the chosen one when the configuration asked for port 0).
    public let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// `http://<host>:<port>`.
    public var url: URL {
        let host = server.configuration.host
        return URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")!
    }

    init(server: SyncServer, logger: Logger) async throws {
        let group = ServiceGroup(services: [server], logger: logger)
        let task = Task { try await group.run() }
        do {
            self.port = try await server.listeningPort()
        } catch {
            task.cancel()
            _ = try? await task.value
            throw error
        }
        self.server = server
        self.group = group
        self.task = task
    }

    /// Stops accepting requests, lets those in flight finish, closes the storage.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}

extension SyncServer {
    /// Starts serving in the background; returns once the server listens.
    ///
    /// - throws: the error that kept it from listening (the port is taken, …).
    public func start() async throws -> RunningSyncServer {
        try await RunningSyncServer(server: self, logger: logger)
    }
}

import ChronicleEvents
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// The reference sync server (`chronicle serve`): the sync protocol on Hummingbird 2, its
/// tenants' events in an ``EventStorage`` (embedded LMDB, or a shared PostgreSQL database).
///
/// Run it as a process, stopping gracefully on SIGINT or SIGTERM:
/// ```swift
/// var tokens = TokenTable()
/// try tokens.add(token: "s3cret")
/// let server = try SyncServer(configuration: .init(port: 8080, tokens: tokens),
///                             storage: LMDBEventStorage(dataDirectory: "/var/lib/chronicle"))
/// try await server.runUntilSignalled()
/// ```
///
/// Or inside a `ServiceGroup` (it is a `Service`), on port 0 in tests:
/// ```swift
/// let group = ServiceGroup(services: [server], logger: logger)
/// Task { try await group.run() }
/// let port = try await server.listeningPort()
/// …
/// await group.triggerGracefulShutdown()
/// ```
public final class SyncServer: Service, Sendable {
    /// How a server listens, whose tokens it accepts and what requests it takes.
    public struct Configuration: Sendable {
        /// The address to bind (`127.0.0.1` by default: put a TLS proxy in front to expose it).
        public var host: String
        /// The port; 0 picks a free one (see ``SyncServer/listeningPort()``).
        public var port: Int
        /// The tokens given at start, each its tenant's (recorded in the storage by ``EventStorage/prepare(tokens:)``).
        public var tokens: TokenTable
        /// The identity provider whose JWTs the server accepts besides the static tokens (nil: none).
        public var jwt: JWTAuthentication?
        /// The request limits: the largest body, the largest and the default pull.
        public var limits: SyncAPI.Limits
        /// The level of the default logger (standard error).
        public var logLevel: Logger.Level
        /// How long a connection may stay silent (no request, or a request head arriving
        /// too slowly) before the server closes it.
        public var idleTimeout: Duration
        /// How long a request may take to arrive in full, head to end, before the server
        /// closes the connection: a client trickling its body cannot hold it forever.
        public var requestTimeout: Duration

        /// Makes a configuration; `SyncServer` checks the settings when it is made with it.
        public init(host: String = "127.0.0.1", port: Int = 8080, tokens: TokenTable, jwt: JWTAuthentication? = nil,
                    limits: SyncAPI.Limits = SyncAPI.Limits(),
                    logLevel: Logger.Level = .info, idleTimeout: Duration = .seconds(60),
                    requestTimeout: Duration = .seconds(120)) {
            self.host = host
            self.port = port
            self.tokens = tokens
            self.jwt = jwt
            self.limits = limits
            self.logLevel = logLevel
            self.idleTimeout = idleTimeout
            self.requestTimeout = requestTimeout
        }
    }

    /// The configuration the server was made with.
    public let configuration: Configuration
    /// The endpoints the server serves, over its storage.
    public let api: SyncAPI
    let logger: Logger
    private let listening = ListeningState()

    /// - throws: ``SyncServerError`` when no token or JWT key is configured or a setting is out of range.
    public init(configuration: Configuration, storage: any EventStorage, logger: Logger? = nil) throws(SyncServerError) {
        guard !configuration.tokens.isEmpty || configuration.jwt?.isEmpty == false else { throw .noTokens }
        try configuration.jwt?.validate()
        guard (0...65_535).contains(configuration.port) else {
            throw .invalidSetting("the port must be from 0 to 65535, not \(configuration.port)")
        }
        guard configuration.limits.maxBodyBytes > 0, configuration.limits.maxPullLimit > 0,
              (1...configuration.limits.maxPullLimit).contains(configuration.limits.defaultPullLimit) else {
            throw .invalidSetting("the request limits must be positive")
        }
        guard configuration.limits.maxWaiters > 0, configuration.limits.maxWait >= .zero else {
            throw .invalidSetting("the most waiting pulls must be positive, and the longest wait not negative")
        }
        guard configuration.idleTimeout > .zero, configuration.requestTimeout > .zero else {
            throw .invalidSetting("the idle and request timeouts must be positive")
        }
        self.configuration = configuration
        self.api = SyncAPI(storage: storage, limits: configuration.limits, jwt: configuration.jwt)
        if let logger {
            self.logger = logger
        } else {
            var logger = Logger(label: "chronicle.serve") { label in StreamLogHandler.standardError(label: label) }
            logger.logLevel = configuration.logLevel
            self.logger = logger
        }
    }

    /// Serves until the surrounding `ServiceGroup` shuts down gracefully or the task is
    /// cancelled, then closes the storage. A graceful shutdown ends every waiting pull at once
    /// (each answers what it has).
    public func run() async throws {
        let storage = api.storage
        do {
            try await storage.prepare(tokens: configuration.tokens)
        } catch {
            listening.resolve(.failure(error))
            await storage.close()
            throw error
        }
        let metrics = api.metrics
        let router = Router(context: BasicRequestContext.self)
        let memory = IdleMemoryRelease()
        router.add(middleware: memory.middleware())
        api.install(on: router)
        let listening = self.listening
        let logger = self.logger
        let configuration = self.configuration
        let requestTimeout = TimeAmount(configuration.requestTimeout)
        let app = Application(
            router: router,
            server: .http1(configuration: .init(
                additionalChannelHandlers: [ConnectionEndingHandler(logger: logger, metrics: metrics),
                                            RequestTimeoutHandler(timeout: requestTimeout)],
                idleTimeout: TimeAmount(configuration.idleTimeout))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "chronicle"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let host = channel.localAddress?.ipAddress ?? configuration.host
                listening.resolve(.success(port))
                logger.info("listening", metadata: [
                    "address": "http://\(host.contains(":") ? "[\(host)]" : host):\(port)",
                    "storage": "\(storage)", "tenants": "\(configuration.tokens.tenants.count)",
                    "jwtKeys": "\(configuration.jwt?.keyIDs.count ?? 0)",
                ])
            },
            logger: logger
        )
        let releasing = Task { await memory.run() }
        defer { releasing.cancel() }
        let waiters = api.waiters
        await storage.observeCommits { notice in
            switch notice {
            case .tenant(let tenant): waiters.notify(tenant)
            case .anyTenant: waiters.notifyAll()
            }
        }
        do {
            do {
                // Waiting pulls answer what they have at once: requests in flight finish, and a
                // wait would otherwise hold the shutdown for up to its length.
                try await withGracefulShutdownHandler {
                    try await app.run()
                } onGracefulShutdown: {
                    waiters.close()
                }
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                throw SyncServerError.addressInUse(host: configuration.host, port: configuration.port)
            }
        } catch {
            listening.resolve(.failure(error))
            await storage.close()
            throw error
        }
        listening.resolve(.failure(CancellationError()))
        await storage.close()
        logger.info("stopped")
    }

    /// Runs until SIGINT or SIGTERM, then shuts down gracefully: requests in flight finish.
    public func runUntilSignalled() async throws {
        let group = ServiceGroup(services: [self], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        try await group.run()
    }

    /// The bound port, once the server listens (the chosen one for port 0).
    ///
    /// - throws: the error that stopped ``run()`` before it listened.
    public func listeningPort() async throws -> Int {
        try await listening.wait()
    }
}

/// Hands the bound port to whoever waits for it.
final class ListeningState: Sendable {
    private struct State {
        var result: Result<Int, any Error>?
        var waiters: [CheckedContinuation<Int, any Error>] = []
    }
    private let state = Mutex(State())

    func resolve(_ result: Result<Int, any Error>) {
        let waiters = state.withLock { s -> [CheckedContinuation<Int, any Error>] in
            guard s.result == nil else { return [] }
            s.result = result
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    func wait() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLock { s -> Result<Int, any Error>? in
                if let result = s.result { return result }
                s.waiters.append(continuation)
                return nil
            }
            if let result { continuation.resume(with: result) }
        }
    }
}

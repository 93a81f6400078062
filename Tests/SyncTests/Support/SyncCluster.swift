import Chronicle
import ChronicleSync
import ChronicleTestSupport
import Foundation
import Testing

// MARK: - Devices, server and proxy

/// A reference server, a faulty proxy in front of it, and devices syncing through the proxy.
final class SyncCluster {
    struct Device: Sendable {
        let name: String
        let folder: TemporaryFolder
        let store: ChronicleStore
        let engine: SyncEngine
    }

    static let token = "token-a"

    /// The first server (every server holds the same events: they share one database).
    var server: TestServer { servers[0] }
    /// In-process servers (none when the servers are processes).
    let servers: [TestServer]
    /// `chronicle serve` processes, which a test may kill and restart (none when in-process).
    let processes: [ServerProcess]
    /// The server as the checks read it: directly, not through the proxy.
    var http: HTTP { processes.first?.http ?? servers[0].http }
    /// The PostgreSQL cluster the servers share, when they run on one.
    let database: PostgresCluster?
    let proxy: FaultyProxy
    let maxAttempts: Int
    private(set) var devices: [Device] = []
    /// Devices opened for a check, closed at shutdown with the others.
    var extras: [Device] = []

    private init(servers: [TestServer], processes: [ServerProcess] = [], database: PostgresCluster?, proxy: FaultyProxy,
                 maxAttempts: Int) {
        self.servers = servers
        self.processes = processes
        self.database = database
        self.proxy = proxy
        self.maxAttempts = maxAttempts
    }

    /// A server and a proxy faulting each request with `probability` (seeded by `seed`).
    ///
    /// With `postgresInstances` above 0, that many servers share one PostgreSQL database (a
    /// cluster of the run's own) and the proxy sends requests to them in turn.
    static func start(seed: UInt64, probability: Double, maxAttempts: Int = 10,
                      postgresInstances: Int = 0) async throws -> SyncCluster {
        var servers: [TestServer] = []
        var database: PostgresCluster?
        do {
            if postgresInstances > 0 {
                let cluster = try await PostgresCluster.start()
                database = cluster
                for _ in 0..<postgresInstances { servers.append(try await TestServer.start(tokens: [token: nil], sharing: cluster)) }
            } else {
                servers.append(try await TestServer.start(tokens: [token: nil]))
            }
            let proxy = try await FaultyProxy.start(upstreams: servers.map(\.url), seed: seed, probability: probability)
            return SyncCluster(servers: servers, database: database, proxy: proxy, maxAttempts: maxAttempts)
        } catch {
            for server in servers { try? await server.stop() }
            await database?.stop()
            throw error
        }
    }

    /// `chronicle serve` processes and a proxy in front of them: one on LMDB, or
    /// `postgresInstances` sharing one PostgreSQL database (a cluster of the run's own).
    static func startProcesses(seed: UInt64, probability: Double, maxAttempts: Int = 10,
                               postgresInstances: Int = 0) async throws -> SyncCluster {
        var processes: [ServerProcess] = []
        var database: PostgresCluster?
        var data: TemporaryFolder?
        do {
            if postgresInstances > 0 {
                let cluster = try await PostgresCluster.start()
                database = cluster
                for _ in 0..<postgresInstances {
                    processes.append(try await ServerProcess.start(["--database", cluster.url, "--token", token]))
                }
            } else {
                let folder = try TemporaryFolder("server")
                data = folder
                processes.append(try await ServerProcess.start(["--data", folder.path, "--token", token]))
            }
            let proxy = try await FaultyProxy.start(upstreams: processes.map(\.url), seed: seed, probability: probability)
            let cluster = SyncCluster(servers: [], processes: processes, database: database, proxy: proxy, maxAttempts: maxAttempts)
            cluster.serverData = data
            return cluster
        } catch {
            for process in processes { await process.stop() }
            await database?.stop()
            data?.remove()
            throw error
        }
    }

    /// The data folder of a server process on LMDB, removed at shutdown.
    private var serverData: TemporaryFolder?

    /// A new device syncing through the proxy (small batches and pages, so a sync takes
    /// several requests and faults land in the middle of one).
    @discardableResult
    func addDevice(_ name: String, model: ChronicleModel = TodoAppModel.model) async throws -> Device {
        let device = try openDevice(name, model: model)
        devices.append(device)
        return device
    }

    func openDevice(_ name: String, model: ChronicleModel = TodoAppModel.model) throws -> Device {
        let folder = try TemporaryFolder("device-\(name)")
        do {
            let store = try ChronicleStore(directory: folder.path, backgroundProjections: false,
                                           logOptions: .init(noSync: true), model: model)
            var configuration = SyncConfiguration.testing(proxy.url, token: Self.token, batchSize: 4,
                                                          maxAttempts: maxAttempts)
            configuration.pullLimit = 8
            do {
                return Device(name: name, folder: folder, store: store, engine: try store.syncEngine(configuration))
            } catch {
                Task { await store.close() }
                throw error
            }
        } catch {
            folder.remove()
            throw error
        }
    }

    /// Fails the test when a push or pull did not complete (the proxy is expected to pass everything).
    func expectComplete(_ summary: PushSummary, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(summary.isComplete, "\(what): \(ConvergenceRun.describe(summary.outcome))", sourceLocation: sourceLocation)
    }

    func expectComplete(_ summary: PullSummary, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(summary.isComplete, "\(what): \(ConvergenceRun.describe(summary.outcome))", sourceLocation: sourceLocation)
    }

    func syncUntilQuiet(maxRounds: Int = 8) async throws -> [String] {
        var trace: [String] = []
        return try await syncUntilQuiet(maxRounds: maxRounds, trace: &trace)
    }

    /// Faults off, then rounds of every device pushing and pulling until a round changes
    /// nothing: every push and pull complete, nothing left pending, no event accepted by the
    /// server, none stored by a device. Returns the problems: no quiet round within
    /// `maxRounds`, with what kept the last round from being quiet.
    func syncUntilQuiet(maxRounds: Int = 8, trace: inout [String]) async throws -> [String] {
        proxy.faults.enabled = false
        var unquiet: [String] = []
        for round in 1...maxRounds {
            unquiet = []
            for device in devices {
                let push = try await device.engine.push()
                if !push.isComplete {
                    unquiet.append("device \(device.name)'s push did not complete: \(ConvergenceRun.describe(push.outcome))")
                }
                if push.pending != 0 { unquiet.append("device \(device.name) has \(push.pending) events pending after a push") }
                if push.accepted > 0 { unquiet.append("the server accepted \(push.accepted) events from device \(device.name)") }
                let pull = try await device.engine.pull()
                if !pull.isComplete {
                    unquiet.append("device \(device.name)'s pull did not complete: \(ConvergenceRun.describe(pull.outcome))")
                }
                if pull.stored > 0 { unquiet.append("device \(device.name) stored \(pull.stored) pulled events") }
                trace.append("round \(round) \(device.name): push \(ConvergenceRun.describe(push.outcome)), accepted \(push.accepted) "
                             + "of \(push.eventsAcknowledged); pull \(ConvergenceRun.describe(pull.outcome)), stored \(pull.stored) of \(pull.received)")
            }
            if unquiet.isEmpty { return [] }
        }
        return ["not quiet after \(maxRounds) rounds of every device pushing and pulling with faults off; in the last round: "
                + unquiet.joined(separator: "; ")]
    }

    /// Closes every store, stops the proxy and the server, removes every folder.
    func shutdown() async {
        for device in devices + extras {
            await device.store.close()
            device.folder.remove()
        }
        devices = []
        extras = []
        try? await proxy.stop()
        for server in servers { try? await server.stop() }
        for process in processes { await process.stop() }
        await database?.stop()
        serverData?.remove()
    }
}

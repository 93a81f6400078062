import Foundation

/// Sync push and pull through each server backend, the systems alternating run by run:
/// `chronicle` (the reference server on LMDB), `chronicle-postgres` (one instance on
/// PostgreSQL) and `chronicle-postgres-3` (three instances on the same database).
///
/// Prepares the clients' logs once: the first `count` events, split by entity into one
/// share per server instance. Per run and system it starts the instances (children, fresh
/// LMDB folder or a fresh tenant in the database) on loopback; pushes with one client per
/// instance at the same time; then pulls everything into one fresh device per instance at
/// the same time (read models brought up to date); and stops the instances with SIGTERM.
/// With several clients the rate is all their events over the slowest one's time.
struct SyncPushPhase {
    let root: String
    let dataset: String
    let count: Int
    let runs: Int
    let seed: UInt64
    /// The PostgreSQL database the `chronicle-postgres` systems use; without one only `chronicle` runs.
    let database: String?

    func run(into results: inout BenchResults) throws {
        let systems = Workload.syncPush.systems.filter { database != nil || !$0.onPostgres }
        var prepared: [Int: [String]] = [:]   // per number of shares, the logs holding them
        defer {
            for path in prepared.values.joined() { try? FileManager.default.removeItem(atPath: path) }
        }
        for shares in Set(systems.map(\.serverInstances)).sorted() {
            progress("sync: preparing the first \(count) events as \(shares) client log(s) (not measured)")
            let tasks = (0..<shares).map { lane in
                var task = base(.chronicle)
                task.directory = "\(root)/sync-source-\(lane)-of-\(shares)"
                task.lane = lane
                task.lanes = shares
                return task
            }
            _ = try ChildProcess.runTogether(.prepare, tasks)
            prepared[shares] = tasks.map(\.directory)
        }
        for run in 0..<runs {
            for system in systems {
                try measure(system, run: run, clients: prepared[system.serverInstances]!, into: &results)
            }
        }
    }

    private func base(_ system: BenchSystem) -> ChildTask {
        ChildTask(workload: .syncPush, system: system, dataset: dataset, directory: root, source: nil, count: count, seed: seed)
    }

    private func measure(_ system: BenchSystem, run: Int, clients: [String], into results: inout BenchResults) throws {
        let name = "\(system.rawValue)-\(run)"
        var scratch: [String] = []
        defer { for path in scratch { try? FileManager.default.removeItem(atPath: path) } }

        var serve = base(system)
        serve.tenant = "bench-\(getpid())-\(name)"   // fresh in a shared database
        serve.database = system.onPostgres ? database : nil
        serve.directory = "\(root)/sync-server-\(name)"
        scratch.append(serve.directory)
        var servers: [Process] = []
        defer {
            for server in servers { server.terminate() }
            for server in servers { server.waitUntilExit() }
        }
        var urls: [String] = []
        for _ in 0..<system.serverInstances {
            let (server, port) = try ChildProcess.startServer(serve)
            servers.append(server)
            urls.append("http://127.0.0.1:\(port)")
        }
        let instances = system.serverInstances == 1 ? "1 instance" : "\(system.serverInstances) instances"

        let pushes = try clients.enumerated().map { lane, prepared in
            var push = base(system)
            push.directory = "\(root)/sync-client-\(name)-\(lane)"
            try FileManager.default.copyItem(atPath: prepared, toPath: push.directory)
            scratch.append(push.directory)
            push.source = push.directory
            push.url = urls[lane]
            return push
        }
        progress("sync-push run \(run + 1) \(system.rawValue): \(clients.count) client(s) → \(instances)")
        let pushed = together(try ChildProcess.runTogether(.measure, pushes))
        guard pushed.operations == count else {
            throw BenchError.child("sync-push on \(system.rawValue) acknowledged \(pushed.operations) of \(count) events")
        }
        results.record(.syncPush, system, pushed)
        Orchestrator.report(.syncPush, system, pushed)

        let pulls = urls.enumerated().map { index, url in
            var pull = base(system)
            pull.workload = .syncPull
            pull.directory = "\(root)/sync-device-\(name)-\(index)"
            scratch.append(pull.directory)
            pull.url = url
            return pull
        }
        progress("sync-pull run \(run + 1) \(system.rawValue): \(instances) → \(pulls.count) fresh device(s)")
        let measurements = try ChildProcess.runTogether(.measure, pulls)
        guard measurements.allSatisfy({ $0.operations == count }) else {
            throw BenchError.child("sync-pull on \(system.rawValue) stored \(measurements.map(\.operations)) of \(count) events")
        }
        let pulled = together(measurements)
        results.record(.syncPull, system, pulled)
        Orchestrator.report(.syncPull, system, pulled)
    }

    /// Children that ran at the same time as one measurement: all their operations over the
    /// slowest one's time; the highest peak of any one process.
    private func together(_ measurements: [Measurement]) -> Measurement {
        Measurement(operations: measurements.map(\.operations).reduce(0, +), seconds: measurements.map(\.seconds).max() ?? 0,
                    peakAnonBytes: measurements.map(\.peakAnonBytes).max() ?? 0,
                    diskWriteBytes: measurements.map(\.diskWriteBytes).reduce(0, +))
    }
}

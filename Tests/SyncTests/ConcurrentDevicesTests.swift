import Chronicle
import ChronicleReferee
import ChronicleRefereeSupport
import ChronicleSync
import ChronicleTestSupport
import Foundation
import Synchronization
import Testing

/// Devices acting at once, as they do in the field: three in-process devices in tasks and two
/// device processes (the `chronicle` CLI with wall clocks 5 hours ahead and 3 hours behind)
/// write, push and pull concurrently through a proxy that fails, duplicates, delays
/// and cuts short requests; midway a server process is SIGKILLed and later restarted (on
/// PostgreSQL, one of three instances, while the others serve). Then everyone syncs with
/// faults off, and every device, and a fresh one that only pulled, must show exactly the
/// referee's fold of the server's order.
///
/// - `CHRONICLE_CONCURRENT_SEEDS=N`: runs per storage (default 3; 0 is refused). Seeds follow
///   from the run's seed (``TestSeed``; `CHRONICLE_SEED` replays a run).
@Suite("Devices at once: tasks and processes, skewed clocks, a server killed mid-run", .timeLimit(.minutes(20)))
struct ConcurrentDevicesTests {
    static let stepsPerDevice = 20
    /// The mark of a device's failure in the trace.
    static let failed = "FAILED: "

    @Test("3 device tasks and 2 device processes with skewed clocks sync at once through faults, a server is SIGKILLed and restarted: all equal the referee's fold",
          arguments: [0, 3])
    func devicesAtOnce(postgresInstances: Int) async throws {
        let storage = postgresInstances == 0 ? "lmdb" : "postgres"
        let count = try TestSeed.count("CHRONICLE_CONCURRENT_SEEDS", default: 3)
        let first = TestSeed.seed(for: "ConcurrentDevicesTests.\(storage)")
        for index in 0..<UInt64(count) {
            let seed = first &+ index
            print("ConcurrentDevicesTests.\(storage): seed 0x\(String(seed, radix: 16)) (replay: \(TestSeed.replay))")
            let run = try await Self.play(seed: seed, postgresInstances: postgresInstances)
            print("coverage: seeds 1, steps \(run.steps), devices 6, events \(run.events), concurrent operations \(run.concurrent), overwritten/deleted conflicts \(run.conflicts)")
            #expect(run.problems.isEmpty, """
                seed 0x\(String(seed, radix: 16)) (\(TestSeed.replay)) on \(storage):
                \(run.problems.prefix(10).joined(separator: "\n"))
                trace:
                \(run.trace.joined(separator: "\n"))
                """)
        }
    }

    struct Run {
        var problems: [String] = []
        var trace: [String] = []
        var steps = 0, events = 0
        /// The most device operations seen in flight at once.
        var concurrent = 0
        /// The `overwritten` and `deleted` conflicts the devices listed, each checked by the referee.
        var conflicts = 0
    }

    static func play(seed: UInt64, postgresInstances: Int) async throws -> Run {
        var random = SeededGenerator(seed: seed)
        let cluster = try await SyncCluster.startProcesses(seed: seed &* 0x2545_F491_4F6C_DD1D &+ 1, probability: 0.15,
                                                           maxAttempts: 3, postgresInstances: postgresInstances)
        var run = Run()
        do {
            for name in ["A", "B", "C"] { try await cluster.addDevice(name) }
            let processes = [try CommandLineDevice(name: "P", clockOffset: 5 * 3600, remote: cluster.proxy.url, token: SyncCluster.token),
                             try CommandLineDevice(name: "Q", clockOffset: -3 * 3600, remote: cluster.proxy.url, token: SyncCluster.token)]
            defer { for device in processes { device.folder.remove() } }
            let progress = Progress()
            let total = stepsPerDevice * (cluster.devices.count + processes.count)
            let victim = cluster.processes[Int(random.next() % UInt64(cluster.processes.count))]
            try await withThrowingTaskGroup(of: [String].self) { group in
                for device in cluster.devices {
                    let deviceSeed = random.next()
                    group.addTask {
                        var random = SeededGenerator(seed: deviceSeed)
                        var created: [UUID: Int] = [:]
                        var trace: [String] = []
                        do {
                            for step in 1...stepsPerDevice {
                                let line = try await progress.during {
                                    if Double.random(in: 0..<1, using: &random) < 0.3 {
                                        return try await ConvergenceRun.sync(device, push: Bool.random(using: &random))
                                    }
                                    return try await ConvergenceRun.command(on: device, &random, created: &created)
                                }
                                trace.append("\(device.name)#\(step) \(line)")
                            }
                        } catch {
                            trace.append("\(Self.failed)\(device.name) threw: \(error)")
                        }
                        return trace
                    }
                }
                for device in processes {
                    let deviceSeed = random.next()
                    group.addTask {
                        var random = SeededGenerator(seed: deviceSeed)
                        var trace: [String] = []
                        do {
                            for step in 1...stepsPerDevice {
                                let line = try await progress.during {
                                    if Double.random(in: 0..<1, using: &random) < 0.3 { return try await device.sync(push: Bool.random(using: &random)) }
                                    return try await device.randomCommand(&random)
                                }
                                trace.append("\(device.name)#\(step) \(line)")
                            }
                        } catch {
                            trace.append("\(Self.failed)\(device.name) threw: \(error)")
                        }
                        return trace
                    }
                }
                // The server killed once half the steps are done, back once three quarters are.
                group.addTask {
                    try await progress.wait(until: total / 2)
                    await victim.kill()
                    try await progress.wait(until: total * 3 / 4)
                    try await victim.restart()
                    return ["server on port \(victim.port) SIGKILLed after \(total / 2) steps, restarted after \(total * 3 / 4)"]
                }
                for try await lines in group { run.trace += lines }
            }
            run.problems += run.trace.filter { $0.hasPrefix(Self.failed) }
            guard run.problems.isEmpty else { await cluster.shutdown(); return run }
            run.steps = total
            run.concurrent = progress.mostAtOnce

            run.trace.append("quiet phase (faults off)")
            cluster.proxy.faults.enabled = false
            for device in processes { run.trace.append("\(device.name) " + (try await device.sync(push: true, mustComplete: true))) }
            run.problems += try await cluster.syncUntilQuiet(trace: &run.trace)
            for device in processes { run.trace.append("\(device.name) " + (try await device.sync(push: false, mustComplete: true))) }
            guard run.problems.isEmpty else { await cluster.shutdown(); return run }

            run.problems += try await cluster.convergenceProblems()
            run.problems += try await cluster.invariantProblems()
            let verdict = try await cluster.refereeVerdict()
            run.problems += verdict.problems
            run.conflicts = verdict.conflicts
            let order = try await cluster.serverOrder()
            run.events = order.count
            let expected = RefereeState.fold(order)
            for device in processes {
                run.problems += try await device.shown().differences(from: expected, device: device.name)
                let store = try ChronicleStore(directory: device.folder.path, backgroundProjections: false)
                try await store.refresh()
                let listed = try await RefereeState.conflictProblems(of: store, serverOrder: order, device: device.name)
                run.problems += listed.problems
                run.conflicts += listed.listed
                await store.close()
            }
            run.problems += Self.skewProblems(order)
        } catch {
            run.problems.append("the run threw: \(error)")
        }
        await cluster.shutdown()
        return run
    }

    /// The device processes' clocks really were off: the server holds events stamped hours
    /// ahead and hours behind (unless a device process appended nothing).
    static func skewProblems(_ order: [RefereeEvent]) -> [String] {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let now = Date()
        let offsets = order.compactMap { formatter.date(from: $0.timestamp).map { $0.timeIntervalSince(now) / 3600 } }
        var problems: [String] = []
        if !offsets.contains(where: { $0 > 4 }) { problems.append("no event is stamped 5 hours ahead: device P's clock was not skewed") }
        if !offsets.contains(where: { $0 < -2 }) { problems.append("no event is stamped 3 hours behind: device Q's clock was not skewed") }
        return problems
    }
}

/// How many device steps are done and how many run at once; waits on the count by polling it
/// (a condition, not a clock: no step is expected to take any given time).
final class Progress: Sendable {
    private let state = Mutex((done: 0, running: 0, most: 0))

    var mostAtOnce: Int { state.withLock { $0.most } }

    /// Runs one step, counting it while it runs and once it is done.
    func during<T>(_ step: () async throws -> T) async throws -> T {
        state.withLock { $0.running += 1; $0.most = max($0.most, $0.running) }
        defer { state.withLock { $0.running -= 1; $0.done += 1 } }
        return try await step()
    }

    func wait(until done: Int) async throws {
        while state.withLock({ $0.done }) < done { try await Task.sleep(for: .milliseconds(20)) }
    }
}

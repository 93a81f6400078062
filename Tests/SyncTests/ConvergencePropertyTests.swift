import ChronicleSync
import ChronicleTestSupport
import Foundation
import Testing

/// Devices that edit offline and sync through a faulty network end up showing the same
/// thing: seeded random runs (commands on random devices, pushes and pulls through a proxy
/// that drops, refuses and duplicates requests), then a quiet phase without faults, then
/// every device, and a fresh one that only pulled, must render the same users, todos, tags
/// and stats, byte for byte, with intact logs holding exactly the server's events; and what
/// they show keeps the merge rules' invariants (no live todo of a deleted user, no two live
/// tags named alike, stats that count the live todos).
///
/// - `CHRONICLE_CONVERGENCE_SEEDS=N`: how many seeds to run (default 200; 0 is refused). They
///   follow from the run's seed, new each run (``TestSeed``; `CHRONICLE_SEED` replays a run).
/// - `CHRONICLE_CONVERGENCE_SEED=N`: replay seed N alone (its step trace is printed on failure).
@Suite("Convergence of devices syncing through a faulty network", .timeLimit(.minutes(20)))
struct ConvergencePropertyTests {
    static let replaySeed = ProcessInfo.processInfo.environment["CHRONICLE_CONVERGENCE_SEED"].flatMap { TestSeed.parse($0) }

    /// `count` seeds in a row from the run's seed (``TestSeed``), or the one to replay.
    static func seeds(_ name: String, count variable: String, default fallback: Int) throws -> [UInt64] {
        if let replaySeed { return [replaySeed] }
        let count = try TestSeed.count(variable, default: fallback)
        let first = TestSeed.seed(for: "ConvergencePropertyTests.\(name)")
        print("ConvergencePropertyTests.\(name): seeds 0x\(String(first, radix: 16)) and the \(count - 1) after it (replay the run: \(TestSeed.replay))")
        return (0..<UInt64(count)).map { first &+ $0 }
    }

    static func replayHint(_ seed: UInt64) -> String {
        "replay: CHRONICLE_CONVERGENCE_SEED=0x\(String(seed, radix: 16)) swift test --filter ConvergencePropertyTests"
    }

    // MARK: - Randomized

    @Test("random offline edits on 2–5 devices, random pushes and pulls through faults, then sync until quiet: all converge, invariants hold")
    func randomRunsConverge() async throws {
        let seeds = try Self.seeds("lmdb", count: "CHRONICLE_CONVERGENCE_SEEDS", default: 200)
        let reverted = await Self.play(seeds, postgresInstances: 0)
        if seeds.count >= 50 {
            #expect(reverted.undone > 0 && reverted.redone > 0, "the runs must undo and redo, or they prove nothing about them")
        }
    }

    /// The same runs through 3 server processes sharing one PostgreSQL database, the proxy
    /// sending requests to them in turn (fewer seeds: each starts a cluster of its own;
    /// `CHRONICLE_CONVERGENCE_POSTGRES_SEEDS=N` for more).
    @Test("the same through 3 servers on one PostgreSQL database, requests spread over them: all converge")
    func randomRunsConvergeThroughPostgresInstances() async throws {
        let seeds = try Self.seeds("postgres", count: "CHRONICLE_CONVERGENCE_POSTGRES_SEEDS", default: 12)
        _ = await Self.play(seeds, postgresInstances: 3)
    }

    /// Plays `seeds`, recording an issue per failing seed; returns how many undos and redos took effect.
    static func play(_ seeds: [UInt64], postgresInstances: Int) async -> (undone: Int, redone: Int) {
        var failed: [UInt64] = []
        var reverted = (undone: 0, redone: 0)
        var covered = (devices: 0, steps: 0, events: 0, conflicts: 0)
        let started = ContinuousClock.now
        for seed in seeds {
            let run = await ConvergenceRun.play(seed: seed, postgresInstances: postgresInstances)
            reverted.undone += run.trace.filter { $0.contains("undo(steps:") && $0.hasSuffix("-> ok") }.count
            reverted.redone += run.trace.filter { $0.contains("redo(steps:") && $0.hasSuffix("-> ok") }.count
            covered.devices += run.devices
            covered.steps += run.steps
            covered.events += run.events
            covered.conflicts += run.conflicts
            guard !run.problems.isEmpty else { continue }
            failed.append(seed)
            let detailed = replaySeed != nil || failed.count == 1
            var message = "seed \(seed) failed (\(run.summary)); \(replayHint(seed))\n"
            message += run.problems.prefix(8).map { "- " + $0 }.joined(separator: "\n")
            if run.problems.count > 8 { message += "\n… and \(run.problems.count - 8) more problems" }
            if detailed {
                message += "\nsteps of seed \(seed):\n" + run.trace.joined(separator: "\n")
                message += "\nfaults played: " + (run.faults.isEmpty ? "none" : run.faults.joined(separator: ", "))
            }
            Issue.record(Comment(rawValue: message))
        }
        let elapsed = ContinuousClock.now - started
        if !failed.isEmpty {
            let message = "\(failed.count) of \(seeds.count) seeds failed (first: 0x\(String(failed[0], radix: 16)); "
                + "\(replayHint(failed[0]))); failing seeds: \(failed.map { "0x" + String($0, radix: 16) }.joined(separator: " "))"
            Issue.record(Comment(rawValue: message))
        }
        let through = postgresInstances > 0 ? " through \(postgresInstances) PostgreSQL-backed servers" : ""
        print("convergence\(through): \(seeds.count) seeds in \(elapsed), \(failed.count) failed; \(reverted.undone) undos and \(reverted.redone) redos took effect")
        print("coverage: seeds \(seeds.count), steps \(covered.steps), devices \(covered.devices), events \(covered.events), overwritten/deleted conflicts \(covered.conflicts)")
        return reverted
    }
}

// MARK: - One randomized run

/// One seed's run: its problems (empty: converged) and what happened, step by step.
struct ConvergenceRun {
    var problems: [String] = []
    var trace: [String] = []
    var faults: [String] = []
    var summary = ""
    /// What the run covered: devices, random steps (the shared start's commands included) and the server's events at the end.
    var devices = 0, steps = 0, events = 0
    /// The `overwritten` and `deleted` conflicts the devices listed, each checked by the referee.
    var conflicts = 0

    /// How many devices and steps a seed gets.
    static let devices = 2...5
    static let steps = 10...40
    /// How many commands the first device runs before the others pull its work.
    static let baseline = 3...8
    /// The chance that the proxy faults a request before the quiet phase.
    static let faultProbability = 0.2

    static func play(seed: UInt64, postgresInstances: Int = 0) async -> ConvergenceRun {
        var run = ConvergenceRun()
        var random = SeededGenerator(seed: seed)
        let deviceCount = Int.random(in: devices, using: &random)
        let stepCount = Int.random(in: steps, using: &random)
        run.summary = "\(deviceCount) devices, \(stepCount) steps"
        run.devices = deviceCount
        let cluster: SyncCluster
        do {
            // The proxy's faults come from their own generator, derived from the seed.
            cluster = try await SyncCluster.start(seed: seed &* 0x2545_F491_4F6C_DD1D &+ 1, probability: faultProbability,
                                                  maxAttempts: 3, postgresInstances: postgresInstances)
        } catch {
            run.problems.append("cannot start the server and proxy: \(error)")
            return run
        }
        do {
            for index in 0..<deviceCount { _ = try await cluster.addDevice(["A", "B", "C", "D", "E", "F", "G"][index]) }
            // A shared start, so that devices soon edit the same entities: A runs a few commands,
            // pushes, and every other device pulls (through the faults like everything else).
            let first = cluster.devices[0]
            var created: [UUID: Int] = [:]
            for step in 1...Int.random(in: baseline, using: &random) {
                run.trace.append("start \(step) A " + (try await Self.command(on: first, &random, created: &created)))
                run.steps += 1
            }
            run.trace.append("start A " + (try await Self.sync(first, push: true)))
            for device in cluster.devices.dropFirst() {
                run.trace.append("start \(device.name) " + (try await Self.sync(device, push: false)))
            }
            for step in 1...stepCount {
                let device = cluster.devices[Int.random(in: 0..<deviceCount, using: &random)]
                let line: String
                if Double.random(in: 0..<1, using: &random) < 0.3 {
                    line = try await Self.sync(device, push: Bool.random(using: &random))
                } else {
                    line = try await Self.command(on: device, &random, created: &created)
                }
                run.trace.append("#\(step) \(device.name) \(line)")
                run.steps += 1
                // The declared model's generic fold shows what the stored models show, at every
                // step (this device's unsent events on top of what it pulled).
                if run.problems.isEmpty { run.problems += try await SyncCluster.modelReplayProblems(device) }
            }
            run.faults = cluster.proxy.faults.played
            run.trace.append("quiet phase (faults off)")
            run.problems += try await cluster.syncUntilQuiet(trace: &run.trace)
            if run.problems.isEmpty {
                run.problems += try await cluster.convergenceProblems()
                run.problems += try await cluster.invariantProblems()
                for device in cluster.devices + cluster.extras { run.problems += try await SyncCluster.modelReplayProblems(device) }
                let verdict = try await cluster.refereeVerdict()
                run.problems += verdict.problems
                run.conflicts = verdict.conflicts
                run.events = try await cluster.serverOrder().count
            }
        } catch {
            run.problems.append("the run threw: \(error)")
        }
        run.faults = cluster.proxy.faults.played
        await cluster.shutdown()
        return run
    }

    /// A push or a pull; whatever the network did is fine here.
    static func sync(_ device: SyncCluster.Device, push: Bool) async throws -> String {
        if push {
            let summary = try await device.engine.push()
            return "push -> \(Self.describe(summary.outcome)), acknowledged \(summary.eventsAcknowledged) "
                + "(\(summary.accepted) accepted), \(summary.requests) requests, \(summary.pending) pending"
        } else {
            let summary = try await device.engine.pull()
            return "pull -> \(Self.describe(summary.outcome)), stored \(summary.stored) of \(summary.received), "
                + "\(summary.requests) requests"
        }
    }

    static func describe(_ outcome: PushSummary.Outcome) -> String {
        switch outcome {
        case .complete: "complete"
        case let .gaveUp(error, attempts): "gave up after \(attempts) (\(error))"
        case let .stopped(error): "stopped (\(error))"
        }
    }
}

@_spi(Operator) import Chronicle
import ChronicleReferee
import ChronicleRefereeSupport
import ChronicleSync
import ChronicleTestSupport
import Foundation
import Testing

/// Any declared model converges as the todo app does: devices run random commands of the
/// model (`RandomModelCommand`, read off its declaration), push and pull through a proxy that
/// drops, refuses and duplicates requests, then sync until quiet. Every device, and a fresh
/// one that only pulled, must then show what the referee folds from the server's order
/// (`RefereeModelState`: the model's record and the events read as JSON, sharing no code
/// with the product); each one's stored read model must equal the product's own fold of its
/// whole log (`ModelReplay`); every log verifies and holds the server's events.
///
/// - `CHRONICLE_DECLARED_CONVERGENCE_SEEDS=N`: seeds per model (default 16), following from
///   the run's seed (``TestSeed``; `CHRONICLE_SEED` replays a run).
/// - `CHRONICLE_CONVERGENCE_SEED=N`: replay seed N alone, its steps printed on failure.
@Suite("Any declared model converges through a faulty network", .timeLimit(.minutes(15)))
struct DeclaredModelConvergenceTests {
    @Test("random commands of a declared model on 2–4 devices, pushes and pulls through faults, then quiet: all show the same, equal to the fold",
          arguments: DeclaredTestModels.names)
    func randomRunsConverge(modelName: String) async throws {
        let model = DeclaredTestModels.model(named: modelName)
        let seeds = try ConvergencePropertyTests.seeds("declared-\(modelName)", count: "CHRONICLE_DECLARED_CONVERGENCE_SEEDS", default: 16)
        var failed: [UInt64] = []
        var totals = (accepted: 0, refused: 0, events: 0)
        for seed in seeds {
            let run = await DeclaredModelRun.play(seed: seed, model: model)
            totals.accepted += run.accepted
            totals.refused += run.refused
            totals.events += run.events
            guard !run.problems.isEmpty else { continue }
            failed.append(seed)
            var message = "\(modelName): seed 0x\(String(seed, radix: 16)) failed; replay: CHRONICLE_CONVERGENCE_SEED=0x\(String(seed, radix: 16)) "
                + "swift test --filter DeclaredModelConvergenceTests\n"
            message += run.problems.prefix(8).map { "- " + $0 }.joined(separator: "\n")
            if failed.count == 1 { message += "\nsteps:\n" + run.trace.joined(separator: "\n") }
            Issue.record(Comment(rawValue: message))
        }
        print("declared model \(modelName): \(seeds.count) seeds, \(failed.count) failed; \(totals.accepted) commands accepted, "
              + "\(totals.refused) refused, \(totals.events) events on the servers")
        #expect(seeds.count < 10 || (totals.accepted > seeds.count * 3 && totals.refused > seeds.count),
                "the runs must both accept and refuse commands, or they prove little")
    }
}

/// One seed's run on a declared model.
struct DeclaredModelRun {
    var problems: [String] = []
    var trace: [String] = []
    var accepted = 0, refused = 0, events = 0

    static func play(seed: UInt64, model: ChronicleModel) async -> DeclaredModelRun {
        var run = DeclaredModelRun()
        var random = SeededGenerator(seed: seed)
        let deviceCount = Int.random(in: 2...4, using: &random)
        let stepCount = Int.random(in: 20...60, using: &random)
        let cluster: SyncCluster
        do {
            cluster = try await SyncCluster.start(seed: seed &* 0x2545_F491_4F6C_DD1D &+ 1, probability: 0.2, maxAttempts: 3)
        } catch {
            run.problems.append("cannot start the server and proxy: \(error)")
            return run
        }
        do {
            for index in 0..<deviceCount { try await cluster.addDevice(["A", "B", "C", "D"][index], model: model) }
            let commands = RandomModelCommand(model: model)
            var known: [String: [UUID]] = [:]
            for step in 1...stepCount {
                let device = cluster.devices[Int.random(in: 0..<deviceCount, using: &random)]
                if Double.random(in: 0..<1, using: &random) < 0.3 {
                    run.trace.append("#\(step) \(device.name) " + (try await ConvergenceRun.sync(device, push: Bool.random(using: &random))))
                    continue
                }
                let batch = (0..<(Int.random(in: 0..<5, using: &random) == 0 ? 2 : 1)).map { _ in commands.random(&random, known: known) }
                do {
                    try await device.store.perform { step in
                        for command in batch { try step.perform(command) }
                    }
                    run.accepted += 1
                    for command in batch { if case .create = command.action { known[command.entity, default: []].append(command.id) } }
                    run.trace.append("#\(step) \(device.name) \(batch) -> ok")
                } catch ChronicleError.refused(let problem) {
                    run.refused += 1
                    run.trace.append("#\(step) \(device.name) \(batch) -> refused: \(problem)")
                }
            }
            run.trace.append("quiet phase (faults off)")
            run.problems += try await cluster.syncUntilQuiet(trace: &run.trace)
            if run.problems.isEmpty { run.problems += try await Self.convergenceProblems(cluster, model: model) }
            run.events = try await cluster.serverOrder().count
        } catch {
            run.problems.append("the run threw: \(error)")
        }
        await cluster.shutdown()
        return run
    }

    /// What differs between the devices (and a fresh one that only pulled), what differs from
    /// each one's fold of its log, and what is wrong with their logs.
    static func convergenceProblems(_ cluster: SyncCluster, model: ChronicleModel) async throws -> [String] {
        var problems: [String] = []
        let fresh = try cluster.openDevice("fresh", model: model)
        cluster.extras.append(fresh)
        let pull = try await fresh.engine.pull()
        if !pull.isComplete { problems.append("the fresh device's pull did not complete: \(ConvergenceRun.describe(pull.outcome))") }
        let all = cluster.devices + [fresh]
        let serverIDs = Set(try await cluster.http.pullAll(token: SyncCluster.token).map(\.id))
        var shown: [[String]] = []
        for device in all {
            let store = device.store
            // What the device shows: every entity and every aggregate's rows, as JSON.
            var lines: [String] = []
            for entity in model.entities { lines += try await store.entities(entity.name).map { "\(entity.name) " + model.json(of: $0) } }
            for aggregate in model.aggregates { lines += try await store.rows(aggregate.name).map { "\(aggregate.name) " + model.json(of: $0, in: aggregate) } }
            shown.append(lines)
            // The fold of the whole log shows the same.
            let replayed = try ModelReplay.snapshot(log: store.log, model: model)
            if replayed.unread > 0 { problems.append("device \(device.name): \(replayed.unread) events unread: \(replayed.firstProblem ?? "")") }
            var folded: [String] = []
            for entity in model.entities { folded += replayed.snapshot.shown(entity.name).map { "\(entity.name) " + model.json(of: $0) } }
            for aggregate in model.aggregates {
                folded += (replayed.snapshot.rows(of: aggregate.name) ?? []).map { "\(aggregate.name) " + model.json(of: $0, in: aggregate) }
            }
            if folded != lines {
                problems.append("device \(device.name) shows what its log's fold does not: only shown \(lines.filter { !folded.contains($0) }.prefix(3)); "
                                + "only folded \(folded.filter { !lines.contains($0) }.prefix(3))")
            }
            let report = try store.log.verify()
            if !report.isIntact { problems.append("device \(device.name)'s log fails verify: \(report.problem.map(String.init(describing:)) ?? "")") }
            let ids = Set(try store.log.read(after: 0, limit: .max).map(\.id))
            if ids != serverIDs {
                problems.append("device \(device.name)'s log holds \(ids.subtracting(serverIDs).count) events the server does not, "
                                + "and lacks \(serverIDs.subtracting(ids).count)")
            }
        }
        let order = try await cluster.serverOrder()
        for device in all {
            problems += try await RefereeModelState.problems(of: device.store, serverOrder: order, device: device.name)
        }
        for (device, lines) in zip(all.dropFirst(), shown.dropFirst()) where lines != shown[0] {
            problems.append("devices \(all[0].name) and \(device.name) differ: only \(all[0].name) shows \(shown[0].filter { !lines.contains($0) }.prefix(3)); "
                            + "only \(device.name) shows \(lines.filter { !shown[0].contains($0) }.prefix(3))")
        }
        return problems
    }
}

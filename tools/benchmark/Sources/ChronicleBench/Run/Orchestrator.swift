import Foundation

/// The parent process: generates the data set once, then runs every workload on every
/// system alternately (run 1 of each system, then run 2 of each, …), each run in a child
/// process of its own, so ratios can be taken between runs that ran side by side.
struct Orchestrator {
    let options: BenchOptions

    func run() async throws -> (Report, String) {
        let root = try makeRoot()
        defer { if !options.keep { try? FileManager.default.removeItem(atPath: root) } }
        let machine = MachineInfo.describe(directory: root)
        progress("chronicle-bench: \(machine)")
        progress("stores under \(root); \(options.runCount) runs per workload and system, alternating")

        let sizes = options.sizes
        let dataset = root + "/dataset.bin"
        // The todo app's data set, unless only the notebook's workloads run (they have their own).
        if options.workloads.contains(where: { !$0.isNotebook }) { try generate(dataset, count: sizes.events) }

        var results = BenchResults()
        let selected = Set(options.workloads)
        let reads: [Workload] = [.readTodo, .readDayStats, .readDayTodos].filter(selected.contains)
        var logs: [BenchSystem: String] = [:]     // the store the last append-batch run left, per system
        var models: [BenchSystem: String] = [:]   // the models the last rebuild run left

        func task(_ workload: Workload, _ system: BenchSystem, _ directory: String, count: Int) -> ChildTask {
            ChildTask(workload: workload, system: system, dataset: dataset, directory: directory, source: nil,
                      count: count, batchSize: sizes.batchSize, seed: options.seed)
        }

        // a. Batches of 1,000, durable. Its last store per system is the log (c) and (d) use.
        if selected.contains(.appendBatch) || selected.contains(.rebuild) || !reads.isEmpty {
            let recorded = selected.contains(.appendBatch)
            let systems = recorded ? Workload.appendBatch.systems + (options.diagnose ? [.lmdbIndexed] : [])
                : Workload.appendBatch.systems.filter { $0 != .chronicleKeys && ($0 != .lmdbRaw || selected.contains(.rebuild)) }
            for run in 0..<(recorded ? options.runCount : 1) {
                for system in systems {
                    let directory = "\(root)/log-\(system.rawValue)-\(run)"
                    progress("append-batch run \(run + 1) \(system.rawValue)\(recorded ? "" : " (setup, not recorded)")")
                    let measurement = try ChildProcess.run(.measure, task(.appendBatch, system, directory, count: sizes.events))
                    if recorded { results.record(.appendBatch, system, measurement) }
                    Self.report(.appendBatch, system, measurement)
                    if system == .lmdbIndexed {
                        try? FileManager.default.removeItem(atPath: directory)
                        continue
                    }
                    if let previous = logs[system] { try? FileManager.default.removeItem(atPath: previous) }
                    logs[system] = directory
                }
            }
        }

        // b. Single-event appends from 1 and from 8 writers, back to back per system.
        if selected.contains(.appendSingle1) || selected.contains(.appendSingle8) {
            for run in 0..<options.runCount {
                for system in Workload.appendSingle1.systems {
                    for (workload, writers, count) in [(Workload.appendSingle1, 1, sizes.singleEvents1),
                                                       (.appendSingle8, 8, sizes.singleEvents8)] where selected.contains(workload) {
                        let directory = "\(root)/single-\(system.rawValue)-\(run)-\(writers)"
                        var child = task(workload, system, directory, count: count)
                        child.writers = writers
                        child.timeLimit = sizes.singleTimeLimit
                        progress("\(workload.rawValue) run \(run + 1) \(system.rawValue)")
                        let measurement = try ChildProcess.run(.measure, child)
                        results.record(workload, system, measurement)
                        Self.report(workload, system, measurement)
                        try? FileManager.default.removeItem(atPath: directory)
                    }
                }
            }
        }

        // c. Rebuild every projection from the log (a) left; raw LMDB scans it.
        if selected.contains(.rebuild) || !reads.isEmpty {
            let recorded = selected.contains(.rebuild)
            let systems = recorded ? Workload.rebuild.systems : [.chronicle, .grdb]
            for run in 0..<(recorded ? options.runCount : 1) {
                // What each system built from the one log: those that can say must agree.
                var built: [(system: BenchSystem, contents: String)] = []
                for system in systems {
                    let directory = "\(root)/models-\(system.rawValue)-\(run)"
                    var child = task(.rebuild, system, directory, count: sizes.events)
                    child.source = logs[system]
                    progress("rebuild run \(run + 1) \(system.rawValue)\(recorded ? "" : " (setup, not recorded)")")
                    let measurement = try ChildProcess.run(.measure, child)
                    if recorded { results.record(.rebuild, system, measurement) }
                    if let contents = measurement.contents { built.append((system, contents)) }
                    Self.report(.rebuild, system, measurement)
                    if let previous = models[system] { try? FileManager.default.removeItem(atPath: previous) }
                    models[system] = directory
                }
                if let first = built.first, built.contains(where: { $0.contents != first.contents }) {
                    throw BenchError.child("the rebuilds differ: " + built.map { "\($0.system.rawValue): \($0.contents)" }.joined(separator: "; "))
                }
                if let first = built.first { progress("  rebuilt alike: \(first.contents)") }
            }
        }

        // d. Point reads on the rebuilt models (GRDB's live in its log's database).
        for run in 0..<(reads.isEmpty ? 0 : options.runCount) {
            for workload in reads {
                let count = switch workload {
                case .readTodo: sizes.readTodo
                case .readDayStats: sizes.readDayStats
                default: sizes.readDayTodos
                }
                for system in workload.systems {
                    var child = task(workload, system, root, count: count)
                    child.source = system == .grdb ? logs[.grdb] : models[.chronicle]
                    child.log = logs[.chronicle]
                    progress("\(workload.rawValue) run \(run + 1) \(system.rawValue)")
                    let measurement = try ChildProcess.run(.measure, child)
                    results.record(workload, system, measurement)
                    Self.report(workload, system, measurement)
                }
            }
        }

        // e. Push to the sync server on loopback, then pull into fresh devices, on each backend.
        if selected.contains(.syncPush) || selected.contains(.syncPull) {
            let postgres = try ScratchPostgres.start(under: root)
            defer { postgres?.stop() }
            try SyncPushPhase(root: root, dataset: dataset, count: sizes.syncEvents, runs: options.runCount,
                              seed: options.seed, database: postgres?.url).run(into: &results)
        }

        // n. The notebook, a second model, beside GRDB, on its own data set.
        if options.workloads.contains(where: \.isNotebook) {
            try NotebookPhase(root: root, options: options).run(into: &results)
        }

        let report = Report(machine: machine, results: results, workloads: options.workloads)
        return (report, root)
    }

    private func makeRoot() throws -> String {
        let root: String
        if let directory = options.directory {
            root = (directory as NSString).standardizingPath
        } else {
            let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
            root = "\(base)/chronicle-bench-\(getpid())"
        }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return URL(fileURLWithPath: root).resolvingSymlinksInPath().path
    }

    private func generate(_ path: String, count: Int) throws {
        var generator = DatasetGenerator(seed: options.seed, recencyShare: options.access == "uniform" ? 0 : 0.75)
        try generator.write(to: path, count: count, what: "", seed: options.seed, access: options.access, types: BenchTypes.names)
    }

    static func report(_ workload: Workload, _ system: BenchSystem, _ measurement: Measurement) {
        progress("  \(system.rawValue): \(Report.number(measurement.rate)) \(workload.unit) (\(measurement.operations) in \(String(format: "%.2f", measurement.seconds)) s), peak anon \(measurement.peakAnonBytes >> 20) MiB, \(measurement.diskWriteBytes / max(1, measurement.operations)) bytes written per \(workload.unit == "ops/s" ? "op" : "event")")
    }
}

import Foundation

/// The notebook's workloads (``Workload/notebook``): a second model on a data set of its own,
/// `chronicle-notebook` beside `grdb-notebook`, alternating run by run, each run a child
/// process of its own, as the todo app's workloads run.
///
/// (a) `notes-append-batch`: the events into a fresh log, batches of 1,000; its last log per
/// system is what (c) and (d) use. (b) `notes-apply-batch`: the events into a fresh store,
/// batches of 1,000, each shown once it returns (Chronicle: append, then the entities caught
/// up; GRDB: the tables alone, no log). (c) `notes-rebuild`: the entities or tables from the
/// log (a) left. (d) the reads, on what (c) built. Every apply and rebuild must leave the same
/// contents (``NotebookContents``), and each read the same rows on both systems
/// (``NotebookReadTally``): else the benchmark stops. A workload not selected that a selected
/// one needs runs once, as setup, not recorded.
struct NotebookPhase {
    let root: String
    let options: BenchOptions

    private var sizes: BenchOptions.Sizes { options.sizes }
    private static let systems: [BenchSystem] = [.chronicleNotebook, .grdbNotebook]

    func run(into results: inout BenchResults) throws {
        let dataset = root + "/notebook.bin"
        try generate(dataset, count: sizes.events)
        let selected = Set(options.workloads)
        let reads = Workload.notebookReads.filter(selected.contains)
        var logs: [BenchSystem: String] = [:]     // the log the last append left, per system
        var built: [BenchSystem: String] = [:]    // the states the last rebuild left (Chronicle's)
        var contents = AgreedContents()

        func task(_ workload: Workload, _ system: BenchSystem, _ directory: String, count: Int) -> ChildTask {
            ChildTask(workload: workload, system: system, dataset: dataset, directory: directory, source: nil,
                      count: count, batchSize: sizes.batchSize, seed: options.seed)
        }
        func measure(_ child: ChildTask, run: Int, recorded: Bool) throws -> Measurement {
            progress("\(child.workload.rawValue) run \(run + 1) \(child.system.rawValue)\(recorded ? "" : " (setup, not recorded)")")
            let measurement = try ChildProcess.run(.measure, child)
            if recorded { results.record(child.workload, child.system, measurement) }
            Orchestrator.report(child.workload, child.system, measurement)
            return measurement
        }

        // a. Append batches; the last log per system is kept.
        if selected.contains(.notesAppendBatch) || selected.contains(.notesRebuild) || !reads.isEmpty {
            let recorded = selected.contains(.notesAppendBatch)
            for run in 0..<(recorded ? options.runCount : 1) {
                for system in Self.systems {
                    let directory = "\(root)/notes-log-\(system.rawValue)-\(run)"
                    _ = try measure(task(.notesAppendBatch, system, directory, count: sizes.events), run: run, recorded: recorded)
                    if let previous = logs[system] { try? FileManager.default.removeItem(atPath: previous) }
                    logs[system] = directory
                }
            }
        }

        // b. Apply batches into fresh stores, removed after each run.
        if selected.contains(.notesApplyBatch) {
            for run in 0..<options.runCount {
                for system in Self.systems {
                    let directory = "\(root)/notes-apply-\(system.rawValue)-\(run)"
                    let measurement = try measure(task(.notesApplyBatch, system, directory, count: sizes.events), run: run, recorded: true)
                    try contents.check(measurement, of: system, in: .notesApplyBatch)
                    try? FileManager.default.removeItem(atPath: directory)
                }
            }
        }

        // c. Rebuild from the log (a) left; GRDB's tables live in its log's database.
        if selected.contains(.notesRebuild) || !reads.isEmpty {
            let recorded = selected.contains(.notesRebuild)
            for run in 0..<(recorded ? options.runCount : 1) {
                for system in Self.systems {
                    let directory = "\(root)/notes-states-\(system.rawValue)-\(run)"
                    var child = task(.notesRebuild, system, directory, count: sizes.events)
                    child.source = logs[system]
                    let measurement = try measure(child, run: run, recorded: recorded)
                    try contents.check(measurement, of: system, in: .notesRebuild)
                    if let previous = built[system] { try? FileManager.default.removeItem(atPath: previous) }
                    built[system] = directory
                }
            }
        }
        if let agreed = contents.agreed { progress("  notebook built alike: \(agreed)") }

        // d. Point reads; both systems must find the same.
        for run in 0..<(reads.isEmpty ? 0 : options.runCount) {
            for workload in reads {
                var found: [(system: BenchSystem, tally: String)] = []
                for system in Self.systems {
                    var child = task(workload, system, root, count: sizes.notebookReads(workload))
                    child.source = system == .grdbNotebook ? logs[.grdbNotebook] : built[.chronicleNotebook]
                    child.log = logs[.chronicleNotebook]
                    let measurement = try measure(child, run: run, recorded: true)
                    found.append((system, measurement.contents ?? "nothing said"))
                }
                if let first = found.first, found.contains(where: { $0.tally != first.tally }) {
                    throw BenchError.child("\(workload.rawValue) found different rows: "
                                           + found.map { "\($0.system.rawValue): \($0.tally)" }.joined(separator: "; "))
                }
            }
        }
    }

    private func generate(_ path: String, count: Int) throws {
        var generator = NotebookDatasetGenerator(seed: options.seed, recencyShare: options.access == "uniform" ? 0 : 0.75)
        try generator.write(to: path, count: count, what: "the notebook's ", seed: options.seed, access: options.access, types: NotebookModel.eventTypes)
    }
}

/// The contents every apply and rebuild of the notebook left: the first one said sets what
/// all the others must say.
private struct AgreedContents {
    private(set) var agreed: String?
    private var first: String?

    mutating func check(_ measurement: Measurement, of system: BenchSystem, in workload: Workload) throws {
        guard let contents = measurement.contents else {
            throw BenchError.child("\(workload.rawValue) on \(system.rawValue) said nothing of what it built")
        }
        guard let agreed else {
            agreed = contents
            first = "\(workload.rawValue) on \(system.rawValue)"
            return
        }
        guard contents == agreed else {
            throw BenchError.child("the notebooks differ: \(first ?? ""): \(agreed); \(workload.rawValue) on \(system.rawValue): \(contents)")
        }
    }
}

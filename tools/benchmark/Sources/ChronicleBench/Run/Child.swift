import Foundation

/// The child side: runs one workload on one system and prints one JSON line on stdout.
enum Child {
    static func main(_ arguments: [String]) async -> Int32 {
        guard arguments.count == 2, let step = ChildStep(rawValue: arguments[0]),
              let task = try? JSONDecoder().decode(ChildTask.self, from: Data(arguments[1].utf8)) else {
            progress("error: malformed child invocation")
            return 2
        }
        let sampler = PeakMemorySampler()
        do {
            let (operations, seconds, found) = try await run(step, task)
            var measurement = Measurement(operations: operations, seconds: seconds, peakAnonBytes: sampler.stop(),
                                          diskWriteBytes: PeakMemorySampler.diskWriteBytes())
            (measurement.userSeconds, measurement.systemSeconds) = cpuSeconds()
            if step == .measure { measurement.contents = try found ?? RebuiltContents.summary(task) }
            print(String(decoding: try JSONEncoder().encode(measurement), as: UTF8.self))
            return 0
        } catch {
            progress("error: \(task.workload.rawValue) on \(task.system.rawValue): \(error)")
            return 1
        }
    }

    /// This process's CPU time so far, in user mode and in the kernel.
    private static func cpuSeconds() -> (user: Double, system: Double) {
        var usage = rusage()
        #if canImport(Glibc)
        let who = __rusage_who_t(RUSAGE_SELF.rawValue)
        #else
        let who = RUSAGE_SELF
        #endif
        guard getrusage(who, &usage) == 0 else { return (0, 0) }
        let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return (seconds(usage.ru_utime), seconds(usage.ru_stime))
    }

    /// Runs the step; returns the operations, the timed seconds and, for a notebook's read,
    /// what it found.
    private static func run(_ step: ChildStep, _ task: ChildTask) async throws -> (Int, Double, String?) {
        if step == .measure, task.workload.isNotebook { return try await NotebookChild.run(task) }
        let (operations, seconds) = try await runTodo(step, task)
        return (operations, seconds, nil)
    }

    private static func runTodo(_ step: ChildStep, _ task: ChildTask) async throws -> (Int, Double) {
        switch step {
        case .prepare:
            return try await ChronicleLogWorkloads.prepare(task)
        case .serve:
            return try await ChronicleWorkloads.serve(task)
        case .measure:
            break
        }
        switch (task.workload, task.system) {
        case (.appendBatch, .chronicle): return try await ChronicleLogWorkloads.appendBatch(task)
        case (.appendBatch, .grdb): return try await GRDBWorkloads.appendBatch(task)
        case (.appendBatch, .lmdbRaw): return try await RawLMDBWorkloads.appendBatch(task)
        case (.appendBatch, .lmdbIndexed): return try await RawLMDBWorkloads.appendBatch(task, withIndexes: true)
        case (.appendBatch, .chronicleKeys): return try await ChronicleLogWorkloads.appendBatch(task, withKeys: true)
        case (.appendSingle1, .chronicle), (.appendSingle8, .chronicle): return try await ChronicleLogWorkloads.appendSingle(task)
        case (.appendSingle1, .chronicleKeys), (.appendSingle8, .chronicleKeys):
            return try await ChronicleLogWorkloads.appendSingle(task, withKeys: true)
        case (.appendSingle1, .grdb), (.appendSingle8, .grdb): return try await GRDBWorkloads.appendSingle(task)
        case (.appendSingle1, .lmdbRaw), (.appendSingle8, .lmdbRaw): return try RawLMDBWorkloads.appendSingle(task)
        case (.rebuild, .chronicle): return try EntityWorkloads.rebuild(task)
        case (.readTodo, .chronicle), (.readDayStats, .chronicle), (.readDayTodos, .chronicle):
            return try await EntityWorkloads.reads(task, keys: try ReadKeys.load(dataset: task.dataset, seed: task.seed), asRecords: true)
        case (.readTodo, .chronicleEntities), (.readDayStats, .chronicleEntities), (.readDayTodos, .chronicleEntities):
            return try await EntityWorkloads.reads(task, keys: try ReadKeys.load(dataset: task.dataset, seed: task.seed))
        case (.rebuild, .grdb): return try GRDBWorkloads.rebuild(task)
        case (.rebuild, .lmdbRaw): return try RawLMDBWorkloads.scan(task)
        case (.readTodo, .grdb), (.readDayStats, .grdb), (.readDayTodos, .grdb):
            return try GRDBWorkloads.reads(task, keys: try ReadKeys.load(dataset: task.dataset, seed: task.seed))
        case (.syncPush, .chronicle), (.syncPush, .chroniclePostgres), (.syncPush, .chroniclePostgres3):
            return try await ChronicleWorkloads.syncPush(task)
        case (.syncPull, .chronicle), (.syncPull, .chroniclePostgres), (.syncPull, .chroniclePostgres3):
            return try await ChronicleWorkloads.syncPull(task)
        default: throw BenchError.unsupported("\(task.workload.rawValue) has no \(task.system.rawValue) variant")
        }
    }
}

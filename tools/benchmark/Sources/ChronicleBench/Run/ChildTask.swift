import Foundation

/// One workload run on one system, handed to a child process of the benchmark as JSON.
///
/// Each run is a process of its own so that its peak anonymous memory is its own and
/// nothing (caches, allocator state, threads) leaks from one system into the next.
struct ChildTask: Codable, Sendable {
    var workload: Workload
    var system: BenchSystem
    /// The generated data set file.
    var dataset: String
    /// Where this run keeps its store (created fresh unless the workload reads an existing one).
    var directory: String
    /// An existing store the workload reads (the log that `append-batch` left, the models that `rebuild` left).
    var source: String?
    /// The log the entity states of `chronicle-entities` reads follow.
    var log: String?
    /// Events used (append, push) or operations done (reads).
    var count: Int
    var batchSize: Int = 1000
    var writers: Int = 1
    /// Stops the single-event appends after this many seconds (the disk's fsync rate varies a lot).
    var timeLimit: Double?
    /// The sync server's base URL (`sync-push`) or the port to listen on (`serve`).
    var url: String?
    /// Keys sampled from the data set for point reads.
    var seed: UInt64 = 42
    /// The PostgreSQL database a `serve` step of a `chronicle-postgres` system stores in.
    var database: String?
    /// The tenant the benchmark's token names: a fresh one per run, since the runs share a database.
    var tenant = "bench"
    /// This child's share of the data set (`prepare`): the events whose entity modulo `lanes`
    /// is `lane`, so that each stream is in one share and keeps its order.
    var lane = 0
    var lanes = 1
}

/// What the parent can ask a child to do, beyond the measured workloads.
enum ChildStep: String, Codable, Sendable {
    case measure
    case prepare
    case serve
}

/// Re-executes this binary with a hidden subcommand and collects its one-line JSON answer.
enum ChildProcess {
    static let subcommand = "__child"

    /// The path of the running executable.
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Runs `task` in a child and returns its measurement; its stderr goes to ours.
    static func run(_ step: ChildStep, _ task: ChildTask) throws -> Measurement {
        try start(step, task).finish()
    }

    /// Runs the tasks in children at the same time and returns their measurements, in order.
    static func runTogether(_ step: ChildStep, _ tasks: [ChildTask]) throws -> [Measurement] {
        let running = try tasks.map { try start(step, $0) }
        return try running.map { try $0.finish() }
    }

    /// A child started and not yet waited for.
    struct Running {
        let process: Process
        let output: Pipe
        let task: ChildTask

        /// Waits for the child's one-line JSON result (a few bytes: the pipe never fills, so
        /// children started together can be waited for one after another).
        func finish() throws -> Measurement {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw BenchError.child("\(task.workload.rawValue) on \(task.system.rawValue) failed (exit \(process.terminationStatus))")
            }
            guard let line = String(decoding: data, as: UTF8.self).split(separator: "\n").last,
                  let measurement = try? JSONDecoder().decode(Measurement.self, from: Data(line.utf8)) else {
                throw BenchError.child("\(task.workload.rawValue) on \(task.system.rawValue) printed no result")
            }
            return measurement
        }
    }

    static func start(_ step: ChildStep, _ task: ChildTask) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        let json = String(decoding: try JSONEncoder().encode(task), as: UTF8.self)
        process.arguments = [subcommand, step.rawValue, json]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        return Running(process: process, output: output, task: task)
    }

    /// Starts the sync server in a child and waits for the `port N` line it prints once listening.
    /// The caller terminates it.
    static func startServer(_ task: ChildTask) throws -> (Process, Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executablePath)
        let json = String(decoding: try JSONEncoder().encode(task), as: UTF8.self)
        process.arguments = [subcommand, ChildStep.serve.rawValue, json]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("port "),
              let port = Int(line.dropFirst("port ".count)) else {
            process.terminate()
            throw BenchError.child("the sync server did not start")
        }
        return (process, port)
    }
}

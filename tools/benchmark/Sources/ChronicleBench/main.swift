import Foundation

// chronicle-bench: see `BenchOptions.usage`. A hidden `__child` subcommand runs one
// workload in a process of its own (the parent re-executes this binary).
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == ChildProcess.subcommand {
    exit(await Child.main(Array(arguments.dropFirst())))
}
if arguments.first == LiveLatency.subcommand {
    exit(await LiveLatency.main(Array(arguments.dropFirst())))
}
if arguments.first == CommandThroughput.subcommand {
    exit(await CommandThroughput.main(Array(arguments.dropFirst())))
}
if arguments.first == ReplayTiming.subcommand {
    exit(ReplayTiming.main(Array(arguments.dropFirst())))
}
if arguments.first == JSONComparison.subcommand {
    exit(JSONComparison.main(Array(arguments.dropFirst())))
}
do {
    let options = try BenchOptions.parse(arguments)
    let (report, _) = try await Orchestrator(options: options).run()
    print(report.table(), terminator: "")
    if let path = options.jsonPath {
        try report.json().write(to: URL(fileURLWithPath: path))
        progress("wrote \(path)")
    }
    if let path = options.svgPath {
        try Data(RatioChart(machine: report.machine, results: report.results, workloads: report.workloads).svg().utf8)
            .write(to: URL(fileURLWithPath: path))
        progress("wrote \(path)")
    }
} catch let error as BenchError {
    progress("error: \(error)")
    exit(1)
} catch {
    progress("error: \(error)")
    exit(1)
}

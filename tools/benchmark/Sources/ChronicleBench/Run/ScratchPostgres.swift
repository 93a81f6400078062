import Foundation

/// The PostgreSQL database the `chronicle-postgres` systems run on.
///
/// `CHRONICLE_BENCH_DATABASE_URL` names one to use as it is (the benchmark only adds a
/// tenant per run). Otherwise a throwaway cluster is started under the benchmark's folder with
/// `tools/postgres-scratch` (found through `CHRONICLE_TOOLS`, which `tools/bench` sets), and
/// stopped at the end. Without either, the PostgreSQL systems are left out, and the report says so.
struct ScratchPostgres {
    let url: String
    /// The cluster's folder, when this benchmark started it.
    let directory: String?
    let script: String?

    static func start(under root: String) throws -> ScratchPostgres? {
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["CHRONICLE_BENCH_DATABASE_URL"], !url.isEmpty {
            progress("sync: PostgreSQL at \(url) (CHRONICLE_BENCH_DATABASE_URL)")
            return ScratchPostgres(url: url, directory: nil, script: nil)
        }
        guard let tools = environment["CHRONICLE_TOOLS"] else {
            progress("sync: no PostgreSQL (run through tools/bench, or set CHRONICLE_BENCH_DATABASE_URL): the LMDB server only")
            return nil
        }
        let script = tools + "/postgres-scratch"
        let directory = root + "/postgres"
        progress("sync: starting a PostgreSQL cluster in \(directory)")
        let url = try run(script, ["start", directory])
        return ScratchPostgres(url: url, directory: directory, script: script)
    }

    func stop() {
        guard let directory, let script else { return }
        _ = try? Self.run(script, ["stop", directory])
    }

    /// Runs the script and returns its stdout's last line. The output goes through a file, not a
    /// pipe: the server `pg_ctl` leaves running must not hold anything the benchmark waits on.
    private static func run(_ script: String, _ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "chronicle-bench-postgres-\(getpid()).out"
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script] + arguments
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        process.waitUntilExit()
        try output.close()
        guard process.terminationStatus == 0 else {
            throw BenchError.child("\(script) \(arguments.joined(separator: " ")) failed (exit \(process.terminationStatus))")
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").last.map(String.init) ?? ""
    }
}

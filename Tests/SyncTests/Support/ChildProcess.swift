import ChronicleTestSupport
import Foundation

/// The executables built next to this test binary.
enum Executables {
    static var chronicle: String { built("chronicle") }
    /// The example app (Examples/TodoApp).
    static var todoApp: String { built("TodoAppExample") }

    private static func built(_ name: String) -> String {
        Products.directory.appendingPathComponent(name).path
    }
}

/// A child process whose output goes to files (no pipe can fill up and stall it).
final class ChildProcess: Sendable {
    let process: Process
    let outputPath: String
    let errorPath: String
    private let exit: Task<Int32, Never>

    struct Result: Sendable {
        var status: Int32
        var killedBySignal: Bool
        var stdout: String
        var stderr: String
    }

    /// The pipe stdout goes to instead of a file, when asked for.
    let outputPipe: Pipe?

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], in folder: TemporaryDirectory,
         pipeOutput: Bool = false) throws {
        let name = UUID().uuidString.prefix(8)
        outputPath = folder.appending("out-\(name)")
        errorPath = folder.appending("err-\(name)")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged.removeValue(forKey: "CHRONICLE_STORE")
        merged.removeValue(forKey: "CHRONICLE_TOKEN")
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        outputPipe = pipeOutput ? Pipe() : nil
        process.standardOutput = try outputPipe ?? FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { process in
            continuation.yield(process.terminationStatus)
            continuation.finish()
        }
        try process.run()
        self.process = process
        exit = Task {
            for await status in stream { return status }
            return -1
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// The first stdout line starting with `prefix` (needs `pipeOutput`); `nil` if stdout ends first.
    /// Reads on a dispatch thread: the blocking read never holds a task thread.
    func firstLine(startingWith prefix: String) async -> String? {
        guard let handle = outputPipe?.fileHandleForReading else { return nil }
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var text = ""
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { return continuation.resume(returning: nil) }
                    text += String(decoding: chunk, as: UTF8.self)
                    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                    if let line = lines.first(where: { $0.hasPrefix(prefix) }) {
                        return continuation.resume(returning: String(line))
                    }
                }
            }
        }
    }

    /// Waits for the exit (without blocking a thread) and collects the output.
    func result() async -> Result {
        let status = await exit.value
        return Result(status: status, killedBySignal: process.terminationReason == .uncaughtSignal,
                      stdout: (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")
    }

    /// Runs to the end (on swift-subprocess, through the shared `runCommand`), without the
    /// caller's CHRONICLE_STORE and CHRONICLE_TOKEN unless `environment` sets them.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    in folder: TemporaryDirectory) async throws -> Result {
        var changes: [String: String?] = ["CHRONICLE_STORE": nil, "CHRONICLE_TOKEN": nil]
        for (key, value) in environment { changes[key] = value }
        let output = try await runCommand(URL(fileURLWithPath: executable), arguments, environment: changes)
        return Result(status: output.exit.status, killedBySignal: output.exit.wasSignalled,
                      stdout: output.standardOutputText, stderr: output.standardError)
    }
}

import ChronicleTestSupport
import Foundation

/// Runs the built `chronicle` executable (next to the test binary in the products folder).
struct Chronicle {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
        var trimmed: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    static var executable: URL { Products.directory.appendingPathComponent("chronicle") }

    /// Runs `chronicle ARGS` to completion (on swift-subprocess, through the shared `runCommand`).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Output {
        let output = try await runCommand(executable, arguments, environment: environment)
        return Output(status: output.exit.status, stdout: output.standardOutputText, stderr: output.standardError)
    }

    /// A running child with its pipes.
    struct Running: Sendable {
        let process: Process
        let stdout: FileHandle
        let stderr: FileHandle

        func wait() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    process.waitUntilExit()
                    continuation.resume()
                }
            }
        }
    }

    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Running {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return Running(process: process, stdout: out.fileHandleForReading, stderr: err.fileHandleForReading)
    }

    /// Everything until end of file.
    static func readToEnd(_ handle: FileHandle) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = (try? handle.readToEnd()) ?? Data()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
    }

    /// Reads until the text seen so far contains `marker`, or end of file; returns the text.
    static func read(_ handle: FileHandle, until marker: String) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var seen = Data()
                while !String(decoding: seen, as: UTF8.self).contains(marker) {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    seen.append(chunk)
                }
                continuation.resume(returning: String(decoding: seen, as: UTF8.self))
            }
        }
    }
}

import ChronicleTestSupport
import Foundation

/// The built `chronicle` executable (next to the test binary in the products folder); a long-lived
/// one is a `ChildProcess` of `executable`.
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

    /// Brings the stored entities of the store in `directory` up to its log's head in another
    /// process (the torture helper's `catch-up-entities`).
    static func catchUpEntities(in directory: String) async throws -> Output {
        let output = try await runCommand(try Products.torture(), ["catch-up-entities", "--store", directory])
        return Output(status: output.exit.status, stdout: output.standardOutputText, stderr: output.standardError)
    }
}

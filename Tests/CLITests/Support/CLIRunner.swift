import ChronicleTestSupport
import Foundation
import Testing

/// Runs the built `chronicle` executable (it sits next to the test binary in the products folder).
struct CLIRunner: Sendable {
    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
        var trimmed: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    let store: String

    init() {
        store = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-cli-\(UUID().uuidString)").path
    }

    static var executable: URL { Products.directory.appendingPathComponent("chronicle") }

    /// Runs `chronicle ARGS --store <store>` to its end (on swift-subprocess, through `runCommand`).
    func run(_ arguments: [String], useStore: Bool = true) async throws -> Output {
        let output = try await runCommand(Self.executable, arguments + (useStore ? ["--store", store] : []))
        return Output(status: output.exit.status, stdout: output.standardOutputText, stderr: output.standardError)
    }

    /// Runs `arguments`, expects exit status 0, and returns stdout trimmed.
    func succeed(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let result = try await run(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        return result.trimmed
    }

    func cleanup() { try? FileManager.default.removeItem(atPath: store) }
}

import ChronicleTestSupport
import Foundation

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

    /// Runs `chronicle ARGS --store <store>` and waits for it on a thread of its own: a test
    /// waiting for a child must never block one of the few threads every async test shares
    /// (with 2 cores, two blocked tests stall every server and client in the suite).
    func run(_ arguments: [String], useStore: Bool = true) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try runBlocking(arguments, useStore: useStore) }) }.start()
        }
    }

    private func runBlocking(_ arguments: [String], useStore: Bool) throws -> Output {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments + (useStore ? ["--store", store] : [])
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Drain stdout on another thread while stderr is read here, so neither pipe can fill up and block the child.
        let stdoutBox = DataBox()
        let reader = Thread { stdoutBox.data = (try? out.fileHandleForReading.readToEnd()) ?? Data(); stdoutBox.done.signal() }
        reader.start()
        let stderrData = (try? err.fileHandleForReading.readToEnd()) ?? Data()
        stdoutBox.done.wait()
        process.waitUntilExit()
        return Output(status: process.terminationStatus,
                      stdout: String(decoding: stdoutBox.data, as: UTF8.self),
                      stderr: String(decoding: stderrData, as: UTF8.self))
    }

    func cleanup() { try? FileManager.default.removeItem(atPath: store) }
}

/// Hands the stdout bytes from the reader thread to the caller (the semaphore orders the accesses).
private final class DataBox: @unchecked Sendable {
    var data = Data()
    let done = DispatchSemaphore(value: 0)
}

import Foundation
import Subprocess
import Synchronization
import SystemPackage

/// A child process whose stdout arrives as an async sequence of lines, whose stdin
/// takes lines, and whose exit can be awaited. Blocking pipe reads happen on threads
/// of their own, never on the cooperative pool.
public final class ChildProcess: Sendable {
    /// How the child ended.
    public struct Exit: Sendable, Equatable {
        public var status: Int32
        public var wasSignalled: Bool

        public init(status: Int32, wasSignalled: Bool) {
            self.status = status
            self.wasSignalled = wasSignalled
        }
    }

    private struct State {
        var exit: Exit?
        var openStreams = 2        // stdout and stderr, until each reaches end of file
        var standardError = Data()
        var waiters: [CheckedContinuation<Exit, Never>] = []
    }

    /// Every stdout line, in order; ends when the child closes stdout.
    public let lines: AsyncStream<String>
    /// The child's process id.
    public let pid: Int32
    private let state = Shared()
    private let input: FileHandle

    /// The state the pipe threads and the termination handler share.
    private final class Shared: Sendable {
        let mutex = Mutex(State())
        func withLock<R>(_ body: (inout State) -> R) -> R { mutex.withLock { body(&$0) } }
    }

    /// Starts `executable` with `arguments`.
    public init(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        let (lines, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        self.lines = lines
        self.input = stdin.fileHandleForWriting
        let state = self.state
        process.terminationHandler = { process in
            let exit = Exit(status: process.terminationStatus, wasSignalled: process.terminationReason == .uncaughtSignal)
            state.withLock { $0.exit = exit }
            Self.resumeWaitersIfDone(state)
        }
        try process.run()
        pid = process.processIdentifier
        // The parent's copies of the child's ends must close, or end of file never comes.
        try? stdout.fileHandleForWriting.close()
        try? stderr.fileHandleForWriting.close()
        try? stdin.fileHandleForReading.close()

        let out = stdout.fileHandleForReading
        Self.startThread {
            var pending = Data()
            while true {
                let chunk = out.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: 0x0A) {
                    continuation.yield(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            if !pending.isEmpty { continuation.yield(String(decoding: pending, as: UTF8.self)) }
            continuation.finish()
            state.withLock { $0.openStreams -= 1 }
            Self.resumeWaitersIfDone(state)
        }
        let err = stderr.fileHandleForReading
        Self.startThread {
            while true {
                let chunk = err.availableData
                if chunk.isEmpty { break }
                state.withLock { $0.standardError.append(chunk) }
            }
            state.withLock { $0.openStreams -= 1 }
            Self.resumeWaitersIfDone(state)
        }
    }

    /// Sends one line to the child's stdin.
    public func send(_ line: String) throws {
        try input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Kills the child at once (SIGKILL): no cleanup code of its own runs.
    public func kill() {
        _ = Foundation.kill(pid, SIGKILL)
    }

    /// Waits until the child exited and both of its output streams ended. A cancelled
    /// wait kills the child, so a timed-out test never leaves it running.
    public func waitForExit() async -> Exit {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: Exit? = state.withLock { s in
                    if let exit = s.exit, s.openStreams == 0 { return exit }
                    s.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            kill()
        }
    }

    /// Everything the child wrote to stderr so far (all of it after ``waitForExit()``).
    public var standardErrorText: String {
        state.withLock { String(decoding: $0.standardError, as: UTF8.self) }
    }

    private static func resumeWaitersIfDone(_ state: Shared) {
        let (exit, waiters) = state.withLock { s -> (Exit?, [CheckedContinuation<Exit, Never>]) in
            guard let exit = s.exit, s.openStreams == 0 else { return (nil, []) }
            defer { s.waiters.removeAll() }
            return (exit, s.waiters)
        }
        if let exit { for waiter in waiters { waiter.resume(returning: exit) } }
    }

    private static func startThread(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// What a finished command printed.
public struct CommandOutput: Sendable {
    public var exit: ChildProcess.Exit
    /// The stdout lines, without the empty one after the last newline.
    public var standardOutput: [String]
    /// Stdout as it came.
    public var standardOutputText: String
    public var standardError: String

    public init(exit: ChildProcess.Exit, standardOutputText: String, standardError: String) {
        self.exit = exit
        var lines = standardOutputText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        self.standardOutput = lines
        self.standardOutputText = standardOutputText
        self.standardError = standardError
    }

    /// The stderr lines, without the empty one after the last newline.
    public var errorLines: [String] { standardError.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
}

/// Runs `executable` with `arguments` to its end on swift-subprocess, and returns its exit,
/// its standard output and its standard error. `environment` changes the inherited one (`nil`
/// removes a variable). Past `timeout` the child is ended and ``TimedOut`` is thrown: a hang
/// guard, far above the time the command takes.
public func runCommand(_ executable: URL, _ arguments: [String], environment: [String: String?] = [:],
                       timeout: Duration = .seconds(120)) async throws -> CommandOutput {
    var changes: [Environment.Key: String?] = [:]
    for (name, value) in environment {
        guard let key = Environment.Key(rawValue: name) else { continue }
        changes[key] = value
    }
    let changed = changes
    return try await withTimeout(timeout, "\(executable.lastPathComponent) \(arguments.joined(separator: " "))") {
        let result = try await Subprocess.run(.path(FilePath(executable.path)), arguments: Arguments(arguments),
                                              environment: .inherit.updating(changed),
                                              output: .string(limit: 256 << 20), error: .string(limit: 256 << 20))
        let exit: ChildProcess.Exit
        switch result.terminationStatus {
        case .exited(let code): exit = ChildProcess.Exit(status: code, wasSignalled: false)
        case .signaled(let signal): exit = ChildProcess.Exit(status: signal, wasSignalled: true)
        }
        return CommandOutput(exit: exit, standardOutputText: result.standardOutput, standardError: result.standardError)
    }
}

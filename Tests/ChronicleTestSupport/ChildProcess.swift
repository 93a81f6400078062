import Foundation
import Subprocess
import Synchronization
import SystemPackage

/// A long-lived child process, run on swift-subprocess: its stdout and stderr arrive as
/// async sequences of lines (read as they come, so no pipe fills up and stalls it), its stdin
/// takes lines, signals reach it, and its exit can be awaited.
///
/// swift-subprocess hands a running child (its `Execution`) only to a closure and ends the
/// child when that closure ends; a test holds its children across many steps. So a task of its
/// own runs `Subprocess.run`, whose closure reads the output and keeps the execution where
/// ``kill()`` and ``signal(_:)`` reach it, until the child closed its output.
///
/// Stdin is a pipe of this object's (given to swift-subprocess as a file descriptor), written
/// synchronously by ``send(_:)``: lines sent to several children one after the other arrive
/// microseconds apart, as the races between processes need. (Through swift-subprocess' async
/// stdin writer each line waits for a hop to the writer's actor: in the race of a user's
/// deletion against four processes adding the user's todos, the deletion, sent last, then
/// won 24–34 rounds of 50 instead of 48–50.) The pipe closes when this object goes away.
///
/// The child never outlives what a test keeps of it: a cancelled ``waitForExit()`` (a time limit
/// hit) kills it, and so does dropping the last reference to a child still running.
///
/// ```swift
/// let child = try await ChildProcess(torture, ["hold", "--env", path, "--txn", "read"])
/// #expect(try await child.firstLine { $0 == "holding" } != nil, "\(child.standardErrorText)")
/// try child.send("release")
/// #expect(await child.waitForExit() == .init(status: 0, wasSignalled: false))
/// ```
public final class ChildProcess: Sendable {
    /// How the child ended.
    public struct Exit: Sendable, Equatable, CustomStringConvertible {
        /// The exit code, or the signal's number when ``wasSignalled``.
        public var status: Int32
        /// Whether a signal ended the child (`status` is then the signal).
        public var wasSignalled: Bool

        public init(status: Int32, wasSignalled: Bool) {
            self.status = status
            self.wasSignalled = wasSignalled
        }

        init(_ status: TerminationStatus) {
            switch status {
            case .exited(let code): self.init(status: code, wasSignalled: false)
            case .signaled(let signal): self.init(status: signal, wasSignalled: true)
            }
        }

        public var description: String { wasSignalled ? "signal \(status)" : "exit \(status)" }
    }

    /// Every stdout line (without its newline), in order; ends when the child closes stdout.
    public let lines: AsyncStream<String>
    /// Every stderr line (without its newline), in order; ends when the child closes stderr.
    /// ``standardErrorText`` has the same text whole.
    public let errorLines: AsyncStream<String>
    /// The child's process id.
    public let pid: Int32
    private let shared: Shared
    /// Runs the child to its end; its value is the exit.
    private let runner: Task<Exit, Never>
    /// The write end of the child's stdin.
    private let input: FileDescriptor

    private typealias Running = Execution<FileDescriptorInput, SequenceOutput, SequenceOutput>

    private struct State {
        /// The running child, while the closure given to `Subprocess.run` runs (and the
        /// execution is valid): from the start until the child closed stdout and stderr.
        var execution: Running?
        /// Whether `Subprocess.run` returned (the child was reaped) or failed.
        var ended = false
        var standardError: [UInt8] = []
    }

    /// The state the runner task and the callers share.
    private final class Shared: Sendable {
        let mutex = Mutex(State())
        func withLock<R>(_ body: (inout State) -> R) -> R { mutex.withLock { body(&$0) } }
    }

    /// Starts `executable` with `arguments`; returns once the child runs.
    ///
    /// - Parameter environment: changes to the inherited environment; `nil` removes a variable.
    /// - Throws: when the child cannot be started (a missing executable, say).
    public init(_ executable: URL, _ arguments: [String], environment: [String: String?] = [:]) async throws {
        ignoreBrokenPipes
        // Only the child gets the read end (swift-subprocess closes it here once the child runs);
        // the write end is not inherited by any child.
        let (childInput, input) = try FileDescriptor.pipe()
        _ = fcntl(input.rawValue, F_SETFD, FD_CLOEXEC)
        let shared = Shared()
        let (lines, output) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        let (errorLines, errors) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
        let (started, starting) = AsyncThrowingStream.makeStream(of: Int32.self)
        let changes = environmentChanges(environment)
        let runner = Task { () -> Exit in
            do {
                let result = try await Subprocess.run(
                    .path(FilePath(executable.path)), arguments: Arguments(arguments), environment: .inherit.updating(changes),
                    input: .fileDescriptor(childInput, closeAfterSpawningProcess: true), output: .sequence, error: .sequence
                ) { (execution: Running) in
                    shared.withLock { $0.execution = execution }
                    // Under the lock: no signal is sent through an execution that is no longer valid.
                    defer { shared.withLock { $0.execution = nil } }
                    starting.yield(execution.processIdentifier.value)
                    starting.finish()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            defer { output.finish() }
                            for try await line in execution.standardOutput.strings(
                                separatedBy: .unicodeScalarSequence(["\n"]), bufferingPolicy: .unbounded) {
                                output.yield(line)
                            }
                        }
                        group.addTask {
                            defer { errors.finish() }
                            var pending: [UInt8] = []
                            for try await chunk in execution.standardError {
                                let bytes = chunk.withUnsafeBytes { Array($0) }
                                shared.withLock { $0.standardError += bytes }
                                pending += bytes
                                while let newline = pending.firstIndex(of: 0x0A) {
                                    errors.yield(String(decoding: pending[..<newline], as: UTF8.self))
                                    pending.removeSubrange(...newline)
                                }
                            }
                            if !pending.isEmpty { errors.yield(String(decoding: pending, as: UTF8.self)) }
                        }
                        try await group.waitForAll()
                    }
                }
                shared.withLock { $0.ended = true }
                return Exit(result.terminationStatus)
            } catch {
                // Not started (thrown from the initializer), or its output could not be read
                // (the child was ended; the test sees why on stderr).
                starting.finish(throwing: error)
                output.finish()
                errors.finish()
                shared.withLock {
                    $0.ended = true
                    $0.standardError += Array("\n[ChildProcess: \(executable.lastPathComponent) failed: \(error)]\n".utf8)
                }
                return Exit(status: -1, wasSignalled: false)
            }
        }
        var pid: Int32?
        do {
            for try await started in started { pid = started }
        } catch {
            _ = await runner.value
            try? input.close()
            throw error
        }
        guard let pid else {   // this task was cancelled while the child started
            runner.cancel()
            try? input.close()
            throw CancellationError()
        }
        self.pid = pid
        self.lines = lines
        self.errorLines = errorLines
        self.shared = shared
        self.runner = runner
        self.input = input
    }

    deinit {
        kill()
        try? input.close()
    }

    /// Writes one line (and a newline) to the child's stdin, at once.
    /// - Throws: when the child closed its output already, or the write fails.
    public func send(_ line: String) throws {
        guard shared.withLock({ $0.execution != nil }) else { throw ChildProcessError.notRunning(pid: pid) }
        _ = try input.writeAll(Array((line + "\n").utf8))
    }

    /// Sends the signal `number` (`SIGTERM`, `SIGINT`, …) to the child while its output is open,
    /// that is until it exits; nothing after. (SIGKILL also reaches a child that closed its
    /// output and runs on.)
    public func signal(_ number: Int32) {
        let sent = shared.withLock { state -> Bool in
            guard let execution = state.execution else { return state.ended }
            try? execution.send(signal: Signal(rawValue: number))
            return true
        }
        // The child closed its output but runs on: cancelling the run ends it (with SIGKILL).
        if !sent && number == SIGKILL { runner.cancel() }
    }

    /// Kills the child at once (SIGKILL): no cleanup code of its own runs.
    public func kill() {
        signal(SIGKILL)
    }

    /// Asks the child to stop (SIGTERM), as `kill` or a service manager would.
    public func terminate() {
        signal(SIGTERM)
    }

    /// Waits until the child exited and both of its output streams ended. A cancelled wait
    /// (a time limit hit) kills the child, and returns once it is gone.
    public func waitForExit() async -> Exit {
        await withTaskCancellationHandler {
            await runner.value
        } onCancel: {
            kill()
        }
    }

    /// Everything the child wrote to stderr so far (all of it after ``waitForExit()``).
    public var standardErrorText: String {
        shared.withLock { String(decoding: $0.standardError, as: UTF8.self) }
    }

    /// Reads stdout until a line satisfies `predicate` and returns it; `nil` when stdout
    /// ended first. Past `timeout` (a hang guard) it throws ``TimedOut`` naming `what`.
    /// Lines read before the match are consumed: the next call goes on after it.
    public func firstLine(timeout: Duration = .seconds(120), what: String = "a line from a child process",
                          where predicate: @escaping @Sendable (String) -> Bool) async throws -> String? {
        try await Self.first(in: lines, timeout: timeout, what: what, where: predicate)
    }

    /// ``firstLine(timeout:what:where:)`` on stderr (``errorLines``).
    public func firstErrorLine(timeout: Duration = .seconds(120), what: String = "a stderr line from a child process",
                               where predicate: @escaping @Sendable (String) -> Bool) async throws -> String? {
        try await Self.first(in: errorLines, timeout: timeout, what: what, where: predicate)
    }

    private static func first(in lines: AsyncStream<String>, timeout: Duration, what: String,
                              where predicate: @escaping @Sendable (String) -> Bool) async throws -> String? {
        try await withTimeout(timeout, "waiting for \(what)") {
            for await line in lines where predicate(line) { return line }
            return nil
        }
    }
}

/// Why a ``ChildProcess`` could not do what was asked.
public enum ChildProcessError: Error, CustomStringConvertible {
    /// The child closed its output: it exited, or is about to.
    case notRunning(pid: Int32)

    public var description: String {
        switch self {
        case .notRunning(let pid): "child process \(pid) is no longer running"
        }
    }
}

/// A write to a child that has just exited fails (``ChildProcess/send(_:)`` throws) instead of
/// ending the test process with SIGPIPE.
private let ignoreBrokenPipes: Void = {
    _ = signal(SIGPIPE, SIG_IGN)
}()

/// `environment` as swift-subprocess' changes to the inherited environment.
private func environmentChanges(_ environment: [String: String?]) -> [Environment.Key: String?] {
    var changes: [Environment.Key: String?] = [:]
    for (name, value) in environment {
        guard let key = Environment.Key(rawValue: name) else { continue }
        changes[key] = value
    }
    return changes
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
    let changed = environmentChanges(environment)
    return try await withTimeout(timeout, "\(executable.lastPathComponent) \(arguments.joined(separator: " "))") {
        let result = try await Subprocess.run(.path(FilePath(executable.path)), arguments: Arguments(arguments),
                                              environment: .inherit.updating(changed),
                                              output: .string(limit: 256 << 20), error: .string(limit: 256 << 20))
        return CommandOutput(exit: ChildProcess.Exit(result.terminationStatus), standardOutputText: result.standardOutput,
                             standardError: result.standardError)
    }
}

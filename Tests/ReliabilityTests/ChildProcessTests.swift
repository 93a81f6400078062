import ChronicleTestSupport
import Foundation
import Testing

extension Reliability {
    /// The shared helpers the multi-process tests stand on: `ChildProcess` (on swift-subprocess)
    /// and `TemporaryFolder`, against `/bin/sh` and `/usr/bin/env`.
    @Suite("Test support: child processes and temporary folders", .timeLimit(.minutes(5)))
    struct ChildProcessTests {
        static let shell = URL(fileURLWithPath: "/bin/sh")

        @Test("stdin lines reach the child; its stdout and stderr arrive as lines and stderr as text; its exit code is kept")
        func linesAndExit() async throws {
            let child = try await ChildProcess(Self.shell, ["-c", #"read line; echo "got $line"; echo "to stderr" >&2; printf tail; exit 3"#])
            try child.send("hello")
            #expect(try await child.firstLine { _ in true } == "got hello")
            #expect(try await child.firstLine { _ in true } == "tail", "a last line without a newline still arrives")
            #expect(try await child.firstLine { _ in true } == nil, "stdout ended")
            #expect(try await child.firstErrorLine { _ in true } == "to stderr")
            let exit = try await withTimeout(.seconds(30), "the shell's exit") { await child.waitForExit() }
            #expect(exit == .init(status: 3, wasSignalled: false))
            #expect(child.standardErrorText == "to stderr\n")
            #expect(throws: ChildProcessError.self) { try child.send("too late") }
        }

        @Test("environment changes: a value is set, nil removes an inherited variable")
        func environment() async throws {
            try #require(ProcessInfo.processInfo.environment["PATH"] != nil, "the test process has no PATH to remove")
            let child = try await ChildProcess(URL(fileURLWithPath: "/usr/bin/env"), [],
                                               environment: ["CHRONICLE_PROBE": "set by the test", "PATH": nil])
            var variables: [String] = []
            for await line in child.lines { variables.append(line) }
            #expect(await child.waitForExit() == .init(status: 0, wasSignalled: false))
            #expect(variables.contains("CHRONICLE_PROBE=set by the test"))
            #expect(!variables.contains { $0.hasPrefix("PATH=") }, "\(variables)")
        }

        @Test("a wait that is cancelled (a time limit hit) kills the child; kill() ends it with SIGKILL")
        func cancelledWaitKills() async throws {
            // Reads stdin, which stays open: it never ends by itself.
            let child = try await ChildProcess(Self.shell, ["-c", "echo ready; read never"])
            #expect(try await child.firstLine { $0 == "ready" } != nil, "\(child.standardErrorText)")
            let waiting = Task { await child.waitForExit() }
            waiting.cancel()
            let exit = try await withTimeout(.seconds(30), "the killed child's exit") { await waiting.value }
            #expect(exit == .init(status: SIGKILL, wasSignalled: true))

            let other = try await ChildProcess(Self.shell, ["-c", "echo ready; read never"])
            #expect(try await other.firstLine { $0 == "ready" } != nil)
            other.kill()
            #expect(try await withTimeout(.seconds(30), "the killed child's exit") { await other.waitForExit() }
                    == .init(status: SIGKILL, wasSignalled: true))
            other.kill()   // once it is gone: nothing happens
        }

        @Test("a child that cannot start throws from the initializer")
        func missingExecutable() async throws {
            await #expect(throws: (any Error).self) {
                _ = try await ChildProcess(URL(fileURLWithPath: "/nonexistent/chronicle-no-such-program"), [])
            }
        }

        @Test("a temporary folder is chronicle-<name>-<random>, fresh each time, and gone after its scope, even one that throws")
        func temporaryFolder() async throws {
            struct Planned: Error {}
            var seen: String?
            await #expect(throws: Planned.self) {
                try await TemporaryFolder.with("probe") { path in
                    seen = path
                    #expect(URL(fileURLWithPath: path).lastPathComponent.hasPrefix("chronicle-probe-"))
                    try Data("x".utf8).write(to: URL(fileURLWithPath: path + "/file"))
                    throw Planned()
                }
            }
            let path = try #require(seen)
            #expect(!FileManager.default.fileExists(atPath: path))

            let one = try TemporaryFolder("probe"), two = try TemporaryFolder("probe")
            #expect(one.path != two.path)
            #expect(one.appending("a/b") == one.path + "/a/b")
            one.remove()
            two.remove()
            #expect(!FileManager.default.fileExists(atPath: one.path) && !FileManager.default.fileExists(atPath: two.path))
        }
    }
}

import ChronicleTestSupport
import Foundation

/// The executables built next to this test binary, and how these tests run them: on the
/// shared ``ChildProcess`` and ``runCommand(_:_:environment:timeout:)``, without the caller's
/// `CHRONICLE_STORE` and `CHRONICLE_TOKEN` (a developer's shell must not change what a test
/// does) unless `environment` sets them.
enum Executables {
    static var chronicle: String { built("chronicle") }
    /// The example app (Examples/TodoApp).
    static var todoApp: String { built("TodoAppExample") }
    static var notebookApp: String { built("NotebookExample") }

    private static func built(_ name: String) -> String {
        Products.directory.appendingPathComponent(name).path
    }

    /// Runs `executable` to its end; its exit, stdout and stderr.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> CommandOutput {
        try await runCommand(URL(fileURLWithPath: executable), arguments, environment: changes(environment))
    }

    /// Starts `executable` as a long-lived child (a server, `sync run`).
    static func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess {
        try await ChildProcess(URL(fileURLWithPath: executable), arguments, environment: changes(environment))
    }

    /// The inherited environment's changes: the two variables removed, then `environment` set.
    private static func changes(_ environment: [String: String]) -> [String: String?] {
        var changes: [String: String?] = ["CHRONICLE_STORE": nil, "CHRONICLE_TOKEN": nil]
        for (key, value) in environment { changes[key] = value }
        return changes
    }
}

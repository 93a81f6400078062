import Foundation
import Testing

/// `undo` and `redo` through the executable, each command its own process: the history is
/// the store's, not a process's.
@Suite("chronicle undo and redo", .timeLimit(.minutes(10)))
struct UndoCLITests {
    @Test("undo --json prints the compensating events, redo --json the ones that apply the step again; stats follow")
    func undoAndRedoAcrossProcesses() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let ada = try await cli.run(["user", "add", "--name", "Ada", "--age", "36"]).trimmed
        let todo = try await cli.run(["todo", "add", "--title", "Pay rent", "--deadline", "2026-12-01", "--user", ada]).trimmed
        #expect(try await cli.run(["todo", "complete", todo]).status == 0)
        #expect(try await cli.run(["user", "delete", ada]).status == 0)
        #expect(try await cli.run(["stats", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")

        let undone = try await cli.run(["undo", "--json"])
        #expect(undone.status == 0, "\(undone.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(undone.stdout.utf8)) as? [String: [[String: Any]]])
        #expect(object.keys.sorted() == ["undone"])
        #expect(object["undone"]?.map { $0["type"] as? String } == ["UserRestored", "TodoRestored"])
        #expect(object["undone"]?.map { $0["stream"] as? String } == ["user-\(ada)", "todo-\(todo)"])
        let stats = try await cli.run(["stats", "--json"]).stdout
        #expect(stats.contains(#""completed":1"#) && stats.contains(#""total":1"#))

        let redone = try await cli.run(["redo", "--json"])
        let again = try #require(try JSONSerialization.jsonObject(with: Data(redone.stdout.utf8)) as? [String: [[String: Any]]])
        #expect(again["redone"]?.map { $0["type"] as? String } == ["TodoDeleted", "UserDeleted"])
        #expect(try await cli.run(["user", "list", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")

        let plain = try await cli.run(["undo", "--steps", "2"])
        #expect(plain.status == 0)
        #expect(plain.stdout.hasPrefix("POSITION") && plain.stdout.contains("TodoReopened"))
        #expect(try await cli.run(["verify", "--deep"]).status == 0)
    }

    @Test("nothing to undo or redo, and --steps below 1: one error line, non-zero exit, nothing appended")
    func refusals() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        for (arguments, message) in [(["undo"], "error: nothing to undo"), (["redo"], "error: nothing to redo"),
                                     (["undo", "--steps", "0"], "error: --steps must be at least 1 (got 0)")] {
            let result = try await cli.run(arguments)
            #expect(result.status != 0)
            #expect(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines) == message, "\(arguments)")
            #expect(result.stdout.isEmpty)
        }
        #expect(try await cli.run(["log", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test("two processes undoing at once undo two different steps, never one twice", .timeLimit(.minutes(5)))
    func concurrentUndos() async throws {
        for round in 0..<5 {
            let cli = CLIRunner()
            defer { cli.cleanup() }
            let todo = try await cli.run(["todo", "add", "--title", "A", "--deadline", "2026-12-01"]).trimmed
            #expect(try await cli.run(["todo", "update", todo, "--title", "B"]).status == 0)
            #expect(try await cli.run(["todo", "update", todo, "--title", "C"]).status == 0)
            async let first = cli.run(["undo", "--json"])
            async let second = cli.run(["undo", "--json"])
            let outputs = try await [first, second]
            #expect(outputs.allSatisfy { $0.status == 0 }, "round \(round): \(outputs.map(\.stderr))")
            let shown = try await cli.run(["todo", "show", todo, "--json"]).stdout
            #expect(shown.contains(#""title":"A""#), "round \(round): both updates undone, in order: \(shown)")
            #expect(try await cli.run(["redo", "--steps", "2"]).status == 0)
            #expect(try await cli.run(["todo", "show", todo, "--json"]).stdout.contains(#""title":"C""#))
        }
    }
}

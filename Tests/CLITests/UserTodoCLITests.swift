import Foundation
import Testing

@Suite("chronicle user/todo end to end", .timeLimit(.minutes(10)))
struct UserTodoCLITests {
    @Test("add, update, complete, list, show and delete through the executable")
    func lifecycle() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let add = try await cli.run(["user", "add", "--name", "Ada", "--age", "36"])
        #expect(add.status == 0, "\(add.stderr)")
        let userID = add.trimmed
        #expect(UUID(uuidString: userID) != nil, "add prints the id alone: \(add.stdout)")

        let todo = try await cli.run(["todo", "add", "--title", "Write", "--deadline", "2026-12-01", "--user", userID, "--memo", "notes"])
        #expect(todo.status == 0, "\(todo.stderr)")
        let todoID = todo.trimmed
        #expect(try await cli.run(["user", "update", userID, "--age", "37"]).status == 0)
        #expect(try await cli.run(["todo", "update", todoID, "--deadline", "2026-12-03"]).status == 0)
        #expect(try await cli.run(["todo", "complete", todoID]).status == 0)

        let users = try await cli.run(["user", "list", "--json"])
        let userList = try #require(try JSONSerialization.jsonObject(with: Data(users.stdout.utf8)) as? [[String: Any]])
        #expect(userList.count == 1)
        #expect(userList.first?["age"] as? Int == 37)
        #expect(userList.first?["id"] as? String == userID)

        let shown = try await cli.run(["todo", "show", todoID, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["id", "title", "deadline", "userId", "memo", "isCompleted", "tags"])
        #expect(object["tags"] as? [String] == [])
        #expect(object["deadline"] as? String == "2026-12-03")
        #expect(object["isCompleted"] as? Bool == true)

        let listed = try await cli.run(["todo", "list", "--date", "2026-12-03"])
        #expect(listed.stdout.contains(todoID))
        let stats = try await cli.run(["stats", "--json"])
        #expect(stats.trimmed == #"[{"date":"2026-12-03","total":1,"completed":1}]"#)

        #expect(try await cli.run(["user", "delete", userID]).status == 0)
        let after = try await cli.run(["todo", "list", "--json"])
        #expect(after.trimmed == "[]")
        let log = try await cli.run(["log", "--json"])
        let events = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        #expect(events.compactMap { $0["type"] as? String } ==
                ["UserCreated", "TodoCreated", "UserUpdated", "TodoUpdated", "TodoCompleted", "UserDeleted", "TodoDeleted"])
        #expect(try await cli.run(["verify"]).status == 0)
    }

    @Test("bad input: one error line, non-zero exit, nothing appended",
          arguments: [
              (["user", "add", "--name", "", "--age", "3"], "name must not be empty"),
              (["user", "add", "--name", "Bob", "--age=-1"], "age must be between 0 and 150"),
              (["user", "add", "--name", "Bob", "--age", "-1"], "age must be between 0 and 150 (got -1)"),
              (["log", "--after", "-5"], "--after must be a position, 0 or more (got -5)"),
              (["log", "--limit", "-2"], "--limit must not be negative (got -2)"),
              (["todo", "add", "--title", "T", "--deadline", "2026-02-30"], "2026-02-30"),
              (["todo", "complete", "0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"], "unknown todo"),
              (["user", "update", "0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b", "--age", "3"], "unknown user"),
              (["todo", "show", "not-a-uuid"], "invalid todo id"),
          ])
    func badInput(arguments: [String], expected: String) async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        #expect(try await cli.run(["user", "add", "--name", "Seed", "--age", "1"]).status == 0)
        let before = try await cli.run(["log", "--json"]).stdout
        let result = try await cli.run(arguments)
        #expect(result.status != 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "stderr: \(result.stderr)")
        #expect(lines.first?.hasPrefix("error: ") == true)
        #expect(result.stderr.contains(expected), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try await cli.run(["log", "--json"]).stdout == before)
    }

    @Test("a store is opened only in a new or empty folder or an existing store; anything else is refused and left as it was")
    func storePaths() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let root = cli.store
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        func refused(_ path: String, _ reason: String) async throws {
            let result = try await cli.run(["user", "add", "--name", "Ada", "--age", "36", "--store", path], useStore: false)
            #expect(result.status == 1, "\(path): \(result.stderr)")
            #expect(result.stderr == "error: cannot use '\(path)' as a store: \(reason)\n")
            #expect(result.stdout.isEmpty)
        }
        try await refused("", "the path is empty")
        let file = root + "/notes.txt"
        try Data("notes".utf8).write(to: URL(fileURLWithPath: file))
        try await refused(file, "it is not a directory")
        let other = root + "/other"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try Data([0]).write(to: URL(fileURLWithPath: other + "/data.mdb"))
        try await refused(other, "it holds 'data.mdb' and no store: choose a new or empty folder")
        #expect(try FileManager.default.contentsOfDirectory(atPath: other) == ["data.mdb"], "a refused folder was written to")
        for usable in [root + "/new/store", root + "/empty"] {
            if usable.hasSuffix("empty") { try FileManager.default.createDirectory(atPath: usable, withIntermediateDirectories: true) }
            let added = try await cli.run(["user", "add", "--name", "Ada", "--age", "36", "--store", usable], useStore: false)
            #expect(added.status == 0, "\(usable): \(added.stderr)")
            let again = try await cli.run(["user", "list", "--json", "--store", usable], useStore: false)
            #expect(again.status == 0 && again.stdout.contains("\"Ada\""), "\(usable): \(again.stderr)")
        }
    }

    @Test("stored entities ahead of their log (copied from a later state): detected at open, rebuilt with a notice, never served")
    func modelsAheadOfTheLog() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let source = cli.store + "/source", copy = cli.store + "/copy"
        func chronicle(_ arguments: [String], _ store: String) async throws -> CLIRunner.Output {
            try await cli.run(arguments + ["--store", store], useStore: false)
        }
        for n in 1...3 { #expect(try await chronicle(["user", "add", "--name", "U\(n)", "--age", "1"], source).status == 0) }
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: source + "/log", toPath: copy + "/log")
        for n in 4...5 { #expect(try await chronicle(["user", "add", "--name", "U\(n)", "--age", "1"], source).status == 0) }
        #expect(try await chronicle(["user", "list"], source).status == 0)
        try FileManager.default.copyItem(atPath: source + "/entities", toPath: copy + "/entities")

        let plainVerify = try await chronicle(["verify"], copy)
        #expect(plainVerify.status != 0 && plainVerify.stdout.contains("the entities are folded up to position 5 but the log ends at 3"),
                "\(plainVerify.stdout)")
        let listed = try await chronicle(["user", "list", "--json"], copy)
        #expect(listed.status == 0)
        #expect(listed.stderr.hasPrefix("notice: the stored entities are ahead of the log"), "\(listed.stderr)")
        let names = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        #expect(names.compactMap { $0["name"] as? String } == ["U1", "U2", "U3"])
        // The models follow the log again: a user added now is listed.
        #expect(try await chronicle(["user", "add", "--name", "New", "--age", "2"], copy).status == 0)
        #expect(try await chronicle(["user", "list", "--json"], copy).stdout.contains("\"New\""))
        let deep = try await chronicle(["verify", "--deep"], copy)
        #expect(deep.status == 0, "\(deep.stdout)")
        #expect(deep.stderr.isEmpty)
    }

    @Test("a date that is not a real day is refused by the rule (exit 1) wherever it is given")
    func badDatesExitAlike() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let deadline = try await cli.run(["todo", "add", "--title", "T", "--deadline", "2026-02-30"])
        let from = try await cli.run(["stats", "--from", "2026-02-30"])
        #expect(deadline.status == 1 && from.status == 1, "\(deadline.status) \(from.status)")
        #expect(from.stderr == "error: --from: invalid date '2026-02-30': expected a real calendar day as YYYY-MM-DD\n")
        #expect(try await cli.run(["stats", "--from", "2026-03-02", "--to", "2026-03-01"]).status == 64, "a contradiction between options is usage")
    }

    @Test("counts agree with their nouns: 1 event, 1 user")
    func singularCounts() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        #expect(try await cli.run(["user", "add", "--name", "Ada", "--age", "36"]).status == 0)
        let rebuilt = try await cli.run(["rebuild"])
        #expect(rebuilt.stdout.contains(" from 1 event in "), "\(rebuilt.stdout)")
        #expect(rebuilt.stdout.contains("1 user, 0 todos, 0 days with todos, 0 tags"), "\(rebuilt.stdout)")
        #expect(try await cli.run(["verify"]).stdout.hasPrefix("verify: OK: 1 event, positions 1…1"))
    }

    @Test("an unknown command is an error whatever follows it, --help included")
    func unknownCommands() async throws {
        let cli = CLIRunner()
        for (arguments, message) in [(["resurrect", "--help"], "error: unknown command 'resurrect' for 'chronicle': see 'chronicle --help'\n"),
                                     (["user", "bogus", "--help"], "error: unknown command 'bogus' for 'chronicle user': see 'chronicle user --help'\n"),
                                     (["sync", "pul"], "error: unknown command 'pul' for 'chronicle sync': see 'chronicle sync --help'\n")] {
            let result = try await cli.run(arguments, useStore: false)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr == message)
            #expect(result.stdout.isEmpty)
        }
        #expect(try await cli.run(["help", "user"], useStore: false).status == 0)
    }

    @Test("--help works on every command")
    func help() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        for command in [[], ["user"], ["user", "add"], ["todo", "list"], ["log"], ["verify"], ["stats"], ["replay"],
                        ["rebuild"], ["sync", "push"], ["serve"], ["demo"]] {
            let result = try await cli.run(command + ["--help"], useStore: false)
            #expect(result.status == 0, "\(command)")
            #expect(result.stdout.contains("USAGE"), "\(command)")
        }
    }
}

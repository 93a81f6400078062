import Foundation
import Testing

@Suite("chronicle tag end to end", .timeLimit(.minutes(10)))
struct TagCLITests {
    @Test("tag add, list, show, update and delete, todo tag/untag and list --tag, with plain and JSON output")
    func lifecycle() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let work = try await cli.succeed(["tag", "add", "--name", "Work", "--color", "#FF8800"])
        #expect(UUID(uuidString: work) != nil, "add prints the id alone: \(work)")
        let homeJSON = try await cli.succeed(["tag", "add", "--name", "  Home ", "--color", "#00AA00", "--json"])
        let home = try #require(try object(homeJSON)["id"] as? String)
        #expect(homeJSON == tagJSON(home, "Home", "#00aa00"))
        let apple = try await cli.succeed(["tag", "add", "--name", "apple", "--color", "#123456"])

        // By case-folded name: apple, Home, Work.
        #expect(try await cli.succeed(["tag", "list", "--json"]) ==
                "[" + [tagJSON(apple, "apple", "#123456"), tagJSON(home, "Home", "#00aa00"), tagJSON(work, "Work", "#ff8800")]
                .joined(separator: ",") + "]")
        let table = try await cli.succeed(["tag", "list"]).split(separator: "\n").map(String.init)
        #expect(table.count == 4, "\(table)")
        #expect(table.dropFirst().compactMap { $0.split(separator: " ").first.map(String.init) } == [apple, home, work])
        #expect(table.last?.contains("#ff8800") == true && table.last?.hasSuffix("Work") == true)
        #expect(try await cli.succeed(["tag", "show", work, "--json"]) == tagJSON(work, "Work", "#ff8800"))
        let shown = try await cli.succeed(["tag", "show", work])
        #expect(shown.contains(work) && shown.contains("Work") && shown.contains("#ff8800"), "\(shown)")

        // Another case of its own name is fine; the color is stored lowercase.
        _ = try await cli.succeed(["tag", "update", work, "--name", "WORK"])
        #expect(try await cli.succeed(["tag", "update", work, "--color", "#ABCDEF", "--json"]) == tagJSON(work, "WORK", "#abcdef"))
        #expect(try await cli.succeed(["tag", "show", work, "--json"]) == tagJSON(work, "WORK", "#abcdef"))

        let user = try await cli.succeed(["user", "add", "--name", "Ada", "--age", "36"])
        let first = try await cli.succeed(["todo", "add", "--title", "First", "--deadline", "2026-12-01", "--user", user, "--memo", "m"])
        let second = try await cli.succeed(["todo", "add", "--title", "Second", "--deadline", "2026-12-02"])
        #expect(try await cli.succeed(["todo", "show", first, "--json"]) ==
                todoJSON(first, "First", "2026-12-01", user: user, memo: "m", tags: []))

        #expect(try await cli.succeed(["todo", "tag", first, work]).isEmpty)
        let both = [work, home].sorted()
        let firstTagged = todoJSON(first, "First", "2026-12-01", user: user, memo: "m", tags: both)
        #expect(try await cli.succeed(["todo", "tag", first, home, "--json"]) == firstTagged)
        #expect(try await cli.succeed(["todo", "show", first, "--json"]) == firstTagged)
        #expect(try await cli.succeed(["todo", "show", first]).contains("tags:      \(both.joined(separator: " "))"))
        _ = try await cli.succeed(["todo", "tag", second, work])
        let secondTagged = todoJSON(second, "Second", "2026-12-02", tags: [work])

        #expect(try await cli.succeed(["todo", "list", "--tag", work, "--json"]) == "[\(firstTagged),\(secondTagged)]")
        #expect(try await cli.succeed(["todo", "list", "--tag", home, "--json"]) == "[\(firstTagged)]")
        #expect(try await cli.succeed(["todo", "list", "--tag", apple, "--json"]) == "[]")
        #expect(try await cli.succeed(["todo", "list", "--tag", work, "--date", "2026-12-02", "--json"]) == "[\(secondTagged)]")
        #expect(try await cli.succeed(["todo", "list", "--tag", work, "--user", user, "--json"]) == "[\(firstTagged)]")
        #expect(try await cli.succeed(["todo", "list", "--tag", work, "--user", user, "--date", "2026-12-02", "--json"]) == "[]")
        let plain = try await cli.succeed(["todo", "list", "--tag", home])
        #expect(plain.contains(first) && !plain.contains(second), "\(plain)")

        #expect(try await cli.succeed(["todo", "untag", first, home, "--json"]) ==
                todoJSON(first, "First", "2026-12-01", user: user, memo: "m", tags: [work]))
        #expect(try await cli.succeed(["todo", "list", "--tag", home, "--json"]) == "[]")

        // Deleting a tag takes it off every todo, and frees its name.
        #expect(try await cli.succeed(["tag", "delete", work]).isEmpty)
        #expect(try await cli.succeed(["todo", "list", "--json"]) ==
                "[\(todoJSON(first, "First", "2026-12-01", user: user, memo: "m", tags: [])),\(todoJSON(second, "Second", "2026-12-02", tags: []))]")
        #expect(try await cli.succeed(["tag", "list", "--json"]) ==
                "[\(tagJSON(apple, "apple", "#123456")),\(tagJSON(home, "Home", "#00aa00"))]")
        let reborn = try await cli.succeed(["tag", "add", "--name", "work", "--color", "#000000"])
        #expect(reborn != work)
        #expect(try await cli.succeed(["todo", "list", "--tag", reborn, "--json"]) == "[]")

        let events = try await logEvents(cli)
        #expect(events.compactMap { $0["type"] as? String } == [
            "TagCreated", "TagCreated", "TagCreated", "TagUpdated", "TagUpdated", "UserCreated", "TodoCreated", "TodoCreated",
            "TodoTagged", "TodoTagged", "TodoTagged", "TodoUntagged", "TagDeleted", "TagCreated",
        ])
        #expect(events[0]["stream"] as? String == "tag-\(work)")
        #expect(events[8]["stream"] as? String == "todo-\(first)")
        #expect(events[8]["data"] as? [String: String] == ["tagId": work])
        #expect(events[11]["data"] as? [String: String] == ["tagId": home])
        let verify = try await cli.run(["verify", "--deep"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test("each refused tag command: one error line, non-zero exit, nothing appended")
    func rejections() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let work = try await cli.succeed(["tag", "add", "--name", "Work", "--color", "#000000"])
        let street = try await cli.succeed(["tag", "add", "--name", "Straße", "--color", "#000000"])
        _ = try await cli.succeed(["tag", "add", "--name", "two\nlines", "--color", "#000000"])
        let gone = try await cli.succeed(["tag", "add", "--name", "Gone", "--color", "#000000"])
        _ = try await cli.succeed(["tag", "delete", gone])
        let todo = try await cli.succeed(["todo", "add", "--title", "T", "--deadline", "2026-12-01"])
        _ = try await cli.succeed(["todo", "tag", todo, work])
        let deletedTodo = try await cli.succeed(["todo", "add", "--title", "D", "--deadline", "2026-12-01"])
        _ = try await cli.succeed(["todo", "delete", deletedTodo])
        let unknown = "0193a1b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b"
        let long = String(repeating: "x", count: 51)

        let cases: [([String], String)] = [
            (["tag", "add", "--name", "WORK", "--color", "#111111"], "a tag named 'WORK' already exists"),
            (["tag", "add", "--name", " work ", "--color", "#111111"], "already exists"),
            (["tag", "add", "--name", "STRASSE", "--color", "#111111"], "a tag named 'STRASSE' already exists"),
            (["tag", "add", "--name", "TWO\nLINES", "--color", "#111111"], "already exists"),
            (["tag", "add", "--name", "New", "--color", "#12345"], "invalid color '#12345'"),
            (["tag", "add", "--name", "New", "--color", "123456"], "invalid color"),
            (["tag", "add", "--name", "New", "--color", "#12345g"], "invalid color"),
            (["tag", "add", "--name", "New", "--color", "#123\n456"], "invalid color"),
            (["tag", "add", "--name", "   ", "--color", "#111111"], "tag name must not be empty"),
            (["tag", "add", "--name", long, "--color", "#111111"], "tag name must be at most 50 characters (got 51)"),
            (["tag", "update", street, "--name", "work"], "a tag named 'work' already exists"),
            (["tag", "update", street, "--color", "blue"], "invalid color 'blue'"),
            (["tag", "update", street, "--name", ""], "tag name must not be empty"),
            (["tag", "update", street], "nothing to update"),
            (["tag", "update", unknown, "--name", "X"], "unknown tag \(unknown)"),
            (["tag", "update", gone, "--name", "X"], "tag \(gone) is deleted"),
            (["tag", "delete", gone], "tag \(gone) is deleted"),
            (["tag", "delete", unknown], "unknown tag \(unknown)"),
            (["tag", "delete", "not-a-uuid"], "invalid tag id"),
            (["tag", "show", unknown], "unknown tag \(unknown)"),
            (["tag", "show", gone], gone),
            (["todo", "tag", todo, work], "todo \(todo) already has tag \(work)"),
            (["todo", "tag", todo, unknown], "unknown tag \(unknown)"),
            (["todo", "tag", todo, gone], "tag \(gone) is deleted"),
            (["todo", "tag", unknown, work], "unknown todo \(unknown)"),
            (["todo", "tag", deletedTodo, work], "todo \(deletedTodo) is deleted"),
            (["todo", "tag", todo, "not-a-uuid"], "invalid tag id"),
            (["todo", "untag", todo, street], "todo \(todo) does not have tag \(street)"),
            (["todo", "untag", todo, unknown], "unknown tag \(unknown)"),
            (["todo", "untag", deletedTodo, work], "todo \(deletedTodo) is deleted"),
            (["todo", "list", "--tag", unknown], "unknown tag \(unknown)"),
            (["todo", "list", "--tag", gone], gone),
            (["rebuild", "--projection", "tag"], "tags"),
        ]
        for (arguments, expected) in cases {
            try await expectRefused(cli, arguments, expected)
        }
    }

    /// Contract: "untagging what is not there" and "operations on … deleted tags" are refused.
    /// Fails while `todo untag` accepts a deleted tag the todo still remembers (and appends TodoUntagged).
    @Test("untagging a deleted tag is refused and appends nothing")
    func untagDeletedTag() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let gone = try await cli.succeed(["tag", "add", "--name", "Gone", "--color", "#000000"])
        let todo = try await cli.succeed(["todo", "add", "--title", "T", "--deadline", "2026-12-01"])
        _ = try await cli.succeed(["todo", "tag", todo, gone])
        _ = try await cli.succeed(["tag", "delete", gone])
        try await expectRefused(cli, ["todo", "untag", todo, gone], gone)
    }

    @Test("rebuild --projection tags rebuilds the same tags and todos' tags; verify --deep passes")
    func rebuild() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        var tags: [String] = []
        for (i, name) in ["Zeta", "alpha", "Straße", "Mu", "beta"].enumerated() {
            tags.append(try await cli.succeed(["tag", "add", "--name", name, "--color", "#00000\(i)"]))
        }
        let todo = try await cli.succeed(["todo", "add", "--title", "T", "--deadline", "2026-12-01"])
        for tag in tags { _ = try await cli.succeed(["todo", "tag", todo, tag]) }
        _ = try await cli.succeed(["tag", "update", tags[0], "--name", "Omega"])
        _ = try await cli.succeed(["tag", "delete", tags[3]])

        let listed = try await cli.succeed(["tag", "list", "--json"])
        let names = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names == ["alpha", "beta", "Omega", "Straße"])
        let todoBefore = try await cli.succeed(["todo", "show", todo, "--json"])
        #expect(try object(todoBefore)["tags"] as? [String] == [tags[0], tags[1], tags[2], tags[4]].sorted())
        let byTag = try await cli.succeed(["todo", "list", "--tag", tags[2], "--json"])
        let head = try await logEvents(cli).count

        let rebuilt = try await cli.run(["rebuild", "--projection", "tags", "--json"])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        let summary = try object(rebuilt.trimmed)
        #expect(summary["projections"] as? [String] == ["tags"])
        #expect((summary["entries"] as? [String: Int])?["tags"] == 4)
        #expect(try await cli.run(["rebuild", "--projection", "tags"]).status == 0)

        #expect(try await cli.succeed(["tag", "list", "--json"]) == listed)
        #expect(try await cli.succeed(["todo", "show", todo, "--json"]) == todoBefore)
        #expect(try await cli.succeed(["todo", "list", "--tag", tags[2], "--json"]) == byTag)
        #expect(try await logEvents(cli).count == head, "a rebuild appends nothing")
        // The name claims live in the log, not in the rebuilt model.
        try await expectRefused(cli, ["tag", "add", "--name", "OMEGA", "--color", "#000000"], "already exists")
        _ = try await cli.succeed(["tag", "add", "--name", "ZETA", "--color", "#000000"])
        let verify = try await cli.run(["verify", "--deep"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }

    @Test("8 processes adding one name in different cases at once: exactly one succeeds")
    func concurrentProcesses() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        _ = try await cli.succeed(["tag", "add", "--name", "seed", "--color", "#000000"])
        let names = ["Work", "work", "WORK", "wORK", "WoRk", "wOrK", "WOrk", "woRK"]
        let outputs = try await withThrowingTaskGroup(of: (Int, CLIRunner.Output).self) { group in
            for (i, name) in names.enumerated() {
                group.addTask { (i, try await cli.run(["tag", "add", "--name", name, "--color", "#000000"])) }
            }
            return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }.sorted { $0.key < $1.key }.map(\.value)
        }
        let winners = outputs.filter { $0.status == 0 }
        #expect(winners.count == 1, "\(outputs.map(\.stderr))")
        for (name, output) in zip(names, outputs) where output.status != 0 {
            #expect(output.stderr == "error: a tag named '\(name)' already exists\n")
        }
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(try await cli.succeed(["tag", "list", "--json"]).utf8))
            as? [[String: Any]])
        #expect(listed.count == 2)
        #expect(listed.compactMap { $0["id"] as? String }.contains(winners.first?.trimmed ?? "-"))
        #expect(try await logEvents(cli).count == 2)
    }

    // MARK: - Helpers

    /// Expects one `error: …` line containing `expected`, a non-zero exit, no stdout and an unchanged log.
    private func expectRefused(_ cli: CLIRunner, _ arguments: [String], _ expected: String,
                               sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let before = try await cli.run(["log", "--json"]).stdout
        let result = try await cli.run(arguments)
        #expect(result.status != 0, "\(arguments) succeeded", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines.last?.isEmpty == true, "\(arguments): stderr \(result.stderr)", sourceLocation: sourceLocation)
        #expect(lines.first?.hasPrefix("error: ") == true, "\(arguments): stderr \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(expected), "\(arguments): stderr \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, "\(arguments): stdout \(result.stdout)", sourceLocation: sourceLocation)
        let after = try await cli.run(["log", "--json"]).stdout
        #expect(try JSONSerialization.jsonObject(with: Data(after.utf8)) as? [Any] != nil, sourceLocation: sourceLocation)
        #expect(after == before, "\(arguments) appended something", sourceLocation: sourceLocation)
    }

    private func logEvents(_ cli: CLIRunner) async throws -> [[String: Any]] {
        let log = try await cli.run(["log", "--json"])
        return try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
    }

    private func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// A tag exactly as the CLI prints it: keys id, name, color.
    private func tagJSON(_ id: String, _ name: String, _ color: String) -> String {
        #"{"id":"\#(id)","name":"\#(name)","color":"\#(color)"}"#
    }

    /// A todo exactly as the CLI prints it: keys id, title, deadline, userId, memo, isCompleted, tags.
    private func todoJSON(_ id: String, _ title: String, _ deadline: String, user: String? = nil, memo: String? = nil,
                          completed: Bool = false, tags: [String]) -> String {
        #"{"id":"\#(id)","title":"\#(title)","deadline":"\#(deadline)","userId":\#(user.map { "\"\($0)\"" } ?? "null"),"#
            + #""memo":\#(memo.map { "\"\($0)\"" } ?? "null"),"isCompleted":\#(completed),"#
            + #""tags":[\#(tags.map { "\"\($0)\"" }.joined(separator: ","))]}"#
    }
}

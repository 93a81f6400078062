import ChronicleSchema
import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// `chronicle create`, `update`, `delete` and `restore` write any app's store by the model it
/// records, with its rules held against other processes; on the todo app's store they write
/// what its own commands write.
@Suite("chronicle create, update, delete and restore", .timeLimit(.minutes(10)))
struct GenericWriteCLITests {
    /// A store that records the notebook's model.
    static func notebookStore() async throws -> CLIRunner {
        let cli = CLIRunner()
        #expect(try await cli.run(["log"]).status == 0)
        let log = try EventLog(path: cli.store + "/log")
        _ = try log.recordModel(ModelRecord(version: 1, bytes: Array(NotebookModel.model.record())))
        log.close()
        return cli
    }

    @Test("a notebook written and read by the CLI alone: parents hide, sets change per member, rules refuse with one line")
    func writesAnotherAppsStore() async throws {
        let cli = try await Self.notebookStore()
        defer { cli.cleanup() }
        let home = try await cli.succeed(["create", "Folder", "name=Home"])
        let red = try await cli.succeed(["create", "Label", "name=red"])
        let note = try await cli.succeed(["create", "Note", "day=2026-03-01", "cost=2.50", "folderId=\(home)", "labels=\(red)"])
        _ = try await cli.succeed(["update", "Note", note, "pinned=true", "body=milk"])
        #expect(try await cli.succeed(["list", "NotesPerDay", "--json"]) == #"[{"day":"2026-03-01","notes":1,"pinned":1,"spent":"2.5"}]"#)
        let refused = try await cli.run(["create", "Folder", "name= home "])
        #expect(refused.status == 1 && refused.stderr == "error: a folder with name \" home \" already exists\n", "\(refused.stderr)")
        let badDay = try await cli.run(["create", "Note", "day=2026-02-30"])
        #expect(badDay.status == 1 && badDay.stderr == "error: day must be a real calendar day as YYYY-MM-DD (got \"2026-02-30\")\n")
        let badNumber = try await cli.run(["update", "Note", note, "cost=abc"])
        #expect(badNumber.status == 1 && badNumber.stderr == "error: cost must be a decimal number like 12.50 (got \"abc\")\n")
        _ = try await cli.succeed(["update", "Note", note, "labels-=\(red)"])
        _ = try await cli.succeed(["delete", "Folder", home])
        #expect(try await cli.succeed(["list", "Note", "--json"]) == "[]")
        _ = try await cli.succeed(["restore", "Folder", home])
        #expect(try await cli.succeed(["list", "Note", "--json"])
                == #"[{"id":"\#(note)","body":"milk","day":"2026-03-01","cost":"2.50","pinned":true,"folderId":"\#(home)","labels":[]}]"#)
        // Nothing after `=` clears an optional field; a required one is refused.
        _ = try await cli.succeed(["update", "Note", note, "cost="])
        #expect(try await cli.succeed(["show", "Note", note, "--json"]).contains("\"cost\":null"))
        let required = try await cli.run(["update", "Note", note, "day="])
        #expect(required.status == 1 && required.stderr == "error: day is required: it cannot be cleared\n", "\(required.stderr)")
        // Nothing refused was appended: 3 creations, the update (2 events), the untagging, the deletion, the restoration,
        // the clearing.
        #expect(try await cli.succeed(["log", "--json"]).components(separatedBy: "\"position\"").count - 1 == 10)
    }

    @Test("processes racing to create folders of one name up to case: exactly one succeeds")
    func racingCreatorsHoldTheUniqueName() async throws {
        let cli = try await Self.notebookStore()
        defer { cli.cleanup() }
        let names = ["Same", "SAME", "same", " same", "Same ", "sAmE"]
        let statuses = try await withThrowingTaskGroup(of: Int32.self) { group in
            for name in names { group.addTask { try await cli.run(["create", "Folder", "name=\(name)"]).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 0 }.count == 1, "\(statuses)")
        #expect(statuses.allSatisfy { $0 == 0 || $0 == 1 }, "\(statuses)")
        let folders = try await cli.succeed(["list", "Folder", "--json"])
        #expect(folders.components(separatedBy: "\"id\"").count - 1 == 1, "\(folders)")
    }

    @Test("on the todo app's store the generic commands and the todo app's own hold each other's rules and read each other's events")
    func interworksWithTheTodoCommands() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        let work = try await cli.succeed(["tag", "add", "--name", "Work", "--color", "#AABBCC"])
        let taken = try await cli.run(["create", "Tag", "name=WORK", "color=#000000"])
        #expect(taken.status == 1 && taken.stderr.contains("already exists"), "\(taken.stderr)")
        let home = try await cli.succeed(["create", "Tag", "name=  Home ", "color=#00AA00"])
        let clash = try await cli.run(["tag", "add", "--name", "home", "--color", "#000000"])
        #expect(clash.status == 1, "\(clash.stderr)")
        let user = try await cli.succeed(["create", "User", "name=Ada", "age=36"])
        let todo = try await cli.succeed(["create", "Todo", "title=Pay rent", "deadline=2026-03-01", "userId=\(user)", "memo="])
        _ = try await cli.succeed(["update", "Todo", todo, "isCompleted=true", "tags+=\(work)", "tags+=\(home)"])
        let tags = [home, work].sorted().map { "\"\($0)\"" }.joined(separator: ",")
        #expect(try await cli.succeed(["todo", "list", "--json"])
                == #"[{"id":"\#(todo)","title":"Pay rent","deadline":"2026-03-01","userId":"\#(user)","memo":null,"isCompleted":true,"tags":[\#(tags)]}]"#)
        #expect(try await cli.succeed(["tag", "show", home, "--json"]) == ##"{"id":"\##(home)","name":"Home","color":"#00aa00"}"##)
        #expect(try await cli.succeed(["stats", "--json"]) == #"[{"date":"2026-03-01","total":1,"completed":1}]"#)
        // A tag created here is at the shape the todo app writes (names composed: version 2).
        #expect(try await cli.succeed(["log", "--type", "TagCreated", "--json"]).components(separatedBy: "\"schemaVersion\":2").count - 1 == 2)
        // The user's deletion deletes its todo; `todo add` for the user is then refused, as is a generic one.
        _ = try await cli.succeed(["delete", "User", user])
        #expect(try await cli.succeed(["todo", "list", "--json"]) == "[]")
        let late = try await cli.run(["todo", "add", "--title", "late", "--deadline", "2026-03-02", "--user", user])
        #expect(late.status == 1 && late.stderr.contains("is deleted"), "\(late.stderr)")
        // The tag deleted by the todo app's command frees its name for a generic creation.
        _ = try await cli.succeed(["tag", "delete", work])
        _ = try await cli.succeed(["create", "Tag", "name=work", "color=#123456"])
        #expect(try await cli.run(["verify", "--deep"]).status == 0)
    }
}

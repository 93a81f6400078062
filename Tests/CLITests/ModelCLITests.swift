import Foundation
import Testing

@Suite("chronicle model end to end", .timeLimit(.minutes(10)))
struct ModelCLITests {
    @Test("a store the CLI wrote records the todo app's model; model prints it as a table and as its record")
    func printsTheRecordedModel() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        // Before anything wrote the store: the built-in model, said to be so.
        let before = try await cli.succeed(["model"])
        #expect(before.hasSuffix("(not recorded in the store: the built-in todo app's model)"), "\(before)")
        _ = try await cli.succeed(["user", "add", "--name", "Ada", "--age", "36"])
        let record = try await cli.succeed(["model", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any])
        #expect(object["name"] as? String == "todo-app" && object["version"] as? Int == 1)
        let entities = try #require(object["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["User", "Todo", "Tag"])
        let tagName = (entities[2]["fields"] as? [[String: Any]])?.first
        #expect(tagName?["unique"] as? String == "caseFolded")
        let table = try await cli.succeed(["model"])
        #expect(table.hasPrefix("model todo-app, version 1\n"), "\(table)")
        #expect(table.contains("Todo (todo-<id>): TodoCreated, TodoUpdated, TodoDeleted, TodoRestored, TodoCompleted, TodoReopened, TodoTagged, TodoUntagged"))
        #expect(table.contains("DailyStat: live Todo by deadline as date; total = count, completed = count where isCompleted"))
        #expect(!table.contains("not recorded"))
    }
}

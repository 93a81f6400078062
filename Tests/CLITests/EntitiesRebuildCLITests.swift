@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleLog
import Foundation
import ChronicleLMDB
import Testing

/// `chronicle rebuild` rebuilds a declared model's stored entities (`entities/`) by the model
/// the store records, blue/green: `--projection entities` alone, and with `all` when the store
/// has them.
@Suite("chronicle rebuild of a declared model's entities", .timeLimit(.minutes(5)))
struct EntitiesRebuildCLITests {
    @Test("a damaged entity is folded again from the log; the rebuilt entities verify, and the JSON names the model and position")
    func rebuildsTheEntities() async throws {
        let cli = try await GenericWriteCLITests.notebookStore()
        defer { cli.cleanup() }
        let store = try ChronicleStore(directory: cli.store, backgroundProjections: false, model: NotebookModel.model)
        let home = try await store.create("Folder", ["name": "Home"])
        let note = try await store.create("Note", ["day": "2026-03-01", "cost": "2.50", "folderId": .id(home.id)])
        _ = try await store.create("Note", ["day": "2026-03-02", "body": "milk"])
        let before = try await store.entities("Note")
        let head = try store.log.head()
        await store.close()

        let entities = try EntitiesVerifyCLITests.markDeleted(note.id, in: cli.store)
        #expect(try await cli.run(["verify", "--deep"]).status != 0)

        let rebuilt = try await cli.run(["rebuild", "--projection", "entities"])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(rebuilt.stdout.hasPrefix("rebuilt the entities of model 'notebook' version 1 in "), "\(rebuilt.stdout)")
        #expect(rebuilt.stdout.hasSuffix("; they are at position \(head)\n"), "\(rebuilt.stdout)")
        let verified = try await cli.run(["verify", "--deep"])
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        // The rebuild filled the other set of tables and swapped it in.
        try entities.read { txn in
            let other = try txn.openDatabase(named: "live.1/b", create: false)
            #expect(try txn.count(other) == 2)
            #expect(try txn.count(try txn.openDatabase(named: "live.1", create: false)) == 0)
        }

        // `all` rebuilds the one read model a store has: its entities. The todo app's names are not this model's.
        let all = try await cli.run(["rebuild", "--json"])
        #expect(all.status == 0, "\(all.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any])
        #expect(object["projections"] == nil)
        let users = try await cli.run(["rebuild", "--projection", "users"])
        #expect(users.status == 1 && users.stderr == "error: the store's model 'notebook' has no projection 'users': rebuild 'entities' or 'all'\n",
                "\(users.stderr)")
        let rebuiltEntities = try #require(object["entities"] as? [String: Any], "\(all.stdout)")
        #expect(rebuiltEntities["model"] as? String == "notebook")
        #expect(rebuiltEntities["version"] as? Int == 1)
        #expect(rebuiltEntities["position"] as? Int == Int(head))

        let reopened = try ChronicleStore(directory: cli.store, backgroundProjections: false, model: NotebookModel.model)
        #expect(try await reopened.entities("Note") == before)
        await reopened.close()
    }
}

import Chronicle
import ChronicleTestSupport
import Foundation
import ChronicleLMDB
import Testing

/// `chronicle verify` checks a declared model's stored entities (`entities/`) too: with
/// `--deep`, against the log's fold, entity by entity, index by index, row by row.
@Suite("chronicle verify on a declared model's entities", .timeLimit(.minutes(5)))
struct EntitiesVerifyCLITests {
    /// Marks the stored state of live note `id` deleted, as a bit flipped by the disk would;
    /// returns the entities' environment.
    static func markDeleted(_ id: UUID, in store: String) throws -> Environment {
        let entities = try Environment(path: store + "/entities", options: .init(maxDatabases: 32))
        try entities.write { txn in
            let states = try txn.openDatabase(named: "live.1", create: false)   // the live notes (Note is the second entity)
            let key = withUnsafeBytes(of: id.uuid) { Array($0) }
            var value = Array(try #require(try txn.get(states, key: key)))
            value[0] |= 1
            try txn.put(states, key: key, value: value)
        }
        return entities
    }

    @Test("intact entities verify; a damaged entity and a lost index entry are each named")
    func verifiesTheEntities() async throws {
        let cli = try await GenericWriteCLITests.notebookStore()
        defer { cli.cleanup() }
        let store = try ChronicleStore(directory: cli.store, backgroundProjections: false, model: NotebookModel.model)
        let home = try await store.create("Folder", ["name": "Home"])
        let note = try await store.create("Note", ["day": "2026-03-01", "cost": "2.50", "folderId": .id(home.id)])
        _ = try await store.create("Note", ["day": "2026-03-02"])
        #expect(try await store.rows("NotesPerDay").count == 2)
        await store.close()
        let intact = try await cli.run(["verify", "--deep"])
        #expect(intact.status == 0, "\(intact.stdout)\(intact.stderr)")

        let entities = try Self.markDeleted(note.id, in: cli.store)
        let damaged = try await cli.run(["verify", "--deep"])
        #expect(damaged.status != 0)
        #expect((damaged.stdout + damaged.stderr).contains("entities: 1 differs from the log's fold, first Note \(note.id.uuidString.lowercased())"),
                "\(damaged.stdout)\(damaged.stderr)")
        // Without --deep, the entities are not compared.
        #expect(try await cli.run(["verify"]).status == 0)

        // Put back, then an index entry lost: named too.
        try entities.write { txn in
            let states = try txn.openDatabase(named: "live.1", create: false)
            let key = withUnsafeBytes(of: note.id.uuid) { Array($0) }
            var value = Array(try #require(try txn.get(states, key: key)))
            value[0] &= ~1
            try txn.put(states, key: key, value: value)
            let children = try txn.openDatabase(named: "children", create: false)
            try txn.clear(children)
        }
        let lost = try await cli.run(["verify", "--deep"])
        #expect(lost.status != 0)
        #expect((lost.stdout + lost.stderr).contains("entities: the 'children' index holds 0 entries the log's fold has not, and lacks 1"),
                "\(lost.stdout)\(lost.stderr)")
    }
}

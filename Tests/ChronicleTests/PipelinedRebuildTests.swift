@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Synchronization
import Testing

/// A declared model's rebuild from far behind folds one batch while a second thread writes the
/// batch before it (`ModelStates.pipelinedCatchUp`): the next batch reads what is stored as the
/// last commit left it, and takes from the batch being written the entities it touched. Its
/// batches write the states alone; the indexes, rows and hidden flags are derived at the end,
/// the entities read in parts at once, round by round (`StatesDerivation`). What it builds must
/// be, byte for byte, what the catch-ups that followed the log built, whatever the size of its
/// transactions, the number of parts and the size of the rounds.
@Suite("a declared model's rebuild, folded and written on two threads", .timeLimit(.minutes(5)))
struct PipelinedRebuildTests {
    @Test("random commands on two devices syncing: a rebuild in small transactions builds the catch-ups' bytes",
          arguments: DeclaredTestModels.names)
    func aRebuildBuildsTheCatchUpsBytes(modelName: String) async throws {
        let model = DeclaredTestModels.model(named: modelName)
        let name = "PipelinedRebuildTests.aRebuildBuildsTheCatchUpsBytes.\(modelName)"
        print("\(name): seed 0x\(String(TestSeed.seed(for: name), radix: 16)) (replay the run: \(TestSeed.replay))")
        var random = TestSeed.generator(for: name)
        let folder = try TemporaryFolder("pipelined-rebuild")
        defer { folder.remove() }
        var devices = [try StoredEntitiesTests.open(folder, "a", model: model), try StoredEntitiesTests.open(folder, "b", model: model)]
        var server = ServerOrder()
        let commands = RandomModelCommand(model: model)
        var known: [String: [UUID]] = [:]
        for _ in 1...1500 { _ = try await StoredEntitiesTests.randomStep(devices, &server, commands, &known, &random) }
        for _ in 0..<2 { for index in devices.indices { try await server.sync(devices[index], index: index) } }
        // The stores' states as their catch-ups left them, batch after batch as the log grew.
        for index in devices.indices { _ = try await devices[index].entities(model.entities[0].name) }
        for device in devices { await device.close() }
        devices = []

        for device in ["a", "b"] {
            let log = try EventLog(path: folder.path + "/\(device)/log")
            defer { log.close() }
            let path = folder.path + "/\(device)/entities"
            let states = try ModelStates(path: path, model: model, log: log, noSync: true)
            try states.catchUp()
            let caughtUp = try Self.tables(of: states)
            let size = Int.random(in: 3...60, using: &random)
            let parts = Int.random(in: 1...5, using: &random)
            let round = Int.random(in: 1...100, using: &random)
            let commits = Mutex(0)
            let head = try log.head()
            #expect(try states.rebuild(eventsPerTransaction: size, derivationParts: parts, entitiesPerRound: round) { _ in
                commits.withLock { $0 += 1 }
            } == head)
            let count = commits.withLock { $0 }
            print("\(name): device \(device), \(head) events rebuilt \(size) a transaction in \(count) commits, derived in \(parts) parts of \(round) entities a round")
            #expect(count > Int(head) / size, "the rebuild wrote in \(count) transactions")
            let rebuilt = try Self.tables(of: states)
            for (table, entries) in caughtUp {
                #expect(rebuilt[table] == entries, "device \(device), \(size) events a transaction, \(parts) parts of \(round): table \(table) differs")
            }
            #expect(try ModelStatesVerifier.problems(path: path, model: model, log: log, deep: true) == [])
        }
    }

    @Test("a note hidden by one batch as its folder is deleted, and touched by the next as the folder comes back, is shown")
    func aChildHiddenByTheBatchBeingWritten() async throws {
        let folder = try TemporaryFolder("pipelined-rebuild-hidden")
        defer { folder.remove() }
        let store = try StoredEntitiesTests.open(folder, "store", model: NotebookModel.model)
        // Transactions of two events: the note is hidden by the one that deletes its folder, and
        // touched by the one that restores it, folded while the one before is written.
        let (work, note) = try await store.perform { step in
            (try step.create("Folder", ["name": .text("Work")]), try step.create("Note", ["day": .text("2026-05-01")]))
        }
        try await store.perform { step in try step.update("Note", note, ["folderId": .text(work.uuidString.lowercased()), "body": .text("milk")]) }
        _ = try await store.perform { step in try step.create("Label", ["name": .text("red")]) }
        try await store.perform { step in try step.delete("Folder", work) }
        _ = try await store.perform { step in try step.create("Label", ["name": .text("blue")]) }
        try await store.perform { step in try step.restore("Folder", work) }
        try await store.perform { step in try step.update("Note", note, ["body": .text("milk")]) }
        let log = store.log
        #expect(try log.head() == 8)
        #expect(try await store.entities("Note").map(\.id) == [note])
        let states = try ModelStates(path: folder.path + "/states", model: NotebookModel.model, log: log, noSync: true)
        for _ in 0..<20 {
            try states.rebuild(eventsPerTransaction: 2)
            #expect(try states.shown("Note").map(\.id) == [note])
        }
        #expect(try ModelStatesVerifier.problems(path: folder.path + "/states", model: NotebookModel.model, log: log, deep: true) == [])
        await store.close()
    }

    /// Every entry of the tables readers use, in LMDB's order, by the table's name in the active slot.
    static func tables(of states: ModelStates) throws -> [String: [[[UInt8]]]] {
        let tables = try states.environment.read { try states.tables($0) }
        let named = [("deleted", tables.deleted), ("unique", tables.unique), ("children", tables.children),
                     ("values", tables.values), ("conflicts", tables.conflicts), ("rows", tables.rows), ("meta", tables.meta)]
            + tables.live.enumerated().map { ("live.\($0)", $1) }
        return try Dictionary(uniqueKeysWithValues: named.map { name, database in
            (name, try states.environment.entries(of: database).map { [$0.key, $0.value] })
        })
    }
}

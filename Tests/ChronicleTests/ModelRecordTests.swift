@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// A store records the model it is opened with, and refuses one that contradicts its record.
@Suite("The model a store records", .timeLimit(.minutes(10)))
struct ModelRecordTests {
    static func model(_ name: String = "todo-app", version: Int, extraField: Bool = false) throws -> ChronicleModel {
        try ChronicleModel(name, version: version) { model in
            model.entity("Item") { item in
                item.text("title", .notBlank)
                if extraField { item.integer("rank", default: .integer(0)) }
            }
        }
    }

    /// The records as the log holds them, read back as models.
    static func recorded(_ directory: String) throws -> [ChronicleModel] {
        let log = try EventLog(path: directory + "/log")
        defer { log.close() }
        return try log.modelRecords().map { try ChronicleModel(record: Data($0.bytes)) }
    }

    @Test("a new store records the todo app's model; opening it again records nothing more")
    func aNewStoreRecordsItsModel() async throws {
        let folder = try TemporaryFolder("model-record")
        defer { folder.remove() }
        do {
            let store = try ChronicleStore(directory: folder.path, backgroundProjections: false)
            #expect(store.model == TodoAppModel.model)
            #expect(try store.log.modelRecords().map(\.version) == [1])
            await store.close()
        }
        await (try ChronicleStore(directory: folder.path, backgroundProjections: false)).close()
        #expect(try Self.recorded(folder.path) == [TodoAppModel.model])
    }

    @Test("a new version is recorded beside the old; an older app then opens the store and records nothing")
    func versionsAddUp() async throws {
        let folder = try TemporaryFolder("model-record")
        defer { folder.remove() }
        let first = try Self.model(version: 1), second = try Self.model(version: 2, extraField: true)
        await (try ChronicleStore(directory: folder.path, backgroundProjections: false, model: first)).close()
        await (try ChronicleStore(directory: folder.path, backgroundProjections: false, model: second)).close()
        await (try ChronicleStore(directory: folder.path, backgroundProjections: false, model: first)).close()
        #expect(try Self.recorded(folder.path) == [first, second])
    }

    @Test("another app's model, or this version changed, is refused with one line, and nothing is written",
          arguments: ["another app", "changed, same version"])
    func aContradictingModelIsRefused(_ wrong: String) async throws {
        let folder = try TemporaryFolder("model-record")
        defer { folder.remove() }
        let head: UInt64
        do {
            let store = try ChronicleStore(directory: folder.path, backgroundProjections: false, model: try Self.model(version: 1))
            _ = try await store.create("Item", ["title": "Ada"])
            head = try store.log.head()
            await store.close()
        }
        let model = wrong == "another app" ? try Self.model("notes", version: 1) : try Self.model(version: 1, extraField: true)
        let expected = wrong == "another app" ? "it holds model 'todo-app', not 'notes'"
            : "it records model 'todo-app' version 1 otherwise: a changed model needs a new version"
        #expect(throws: ChronicleError.cannotOpen(path: folder.path, reason: expected)) {
            try ChronicleStore(directory: folder.path, backgroundProjections: false, model: model)
        }
        #expect(try Self.recorded(folder.path) == [try Self.model(version: 1)])
        let log = try EventLog(path: folder.path + "/log")
        defer { log.close() }
        #expect(try log.head() == head)
    }
}

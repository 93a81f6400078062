@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// A new version of an app's model opens the store an earlier version wrote only when it fits
/// what the store holds; one that does not is refused with one line, and nothing is written.
@Suite("A model's new version meets the store's data", .timeLimit(.minutes(5)))
struct ModelEvolutionTests {
    /// The notebook's model at version 2, changed by `change`.
    static func version2(_ change: (inout [ChronicleModel.Entity]) -> Void) throws -> ChronicleModel {
        var entities = NotebookModel.model.entities
        change(&entities)
        let model = ChronicleModel(name: "notebook", version: 2, entities: entities, aggregates: NotebookModel.model.aggregates)
        try model.validate()
        return model
    }

    static func edit(_ entities: inout [ChronicleModel.Entity], _ name: String, _ change: (inout ChronicleModel.Entity) -> Void) {
        let index = entities.firstIndex { $0.name == name }!
        change(&entities[index])
    }

    /// A notebook store with a folder, two labels, "red" and "RED", and a note; closed.
    static func notebookStore() async throws -> TemporaryFolder {
        let folder = try TemporaryFolder("model-evolution")
        let store = try ChronicleStore(directory: folder.path, backgroundProjections: false, model: NotebookModel.model)
        let commands: [(String, Int, ChronicleModel.Command.Action)] = [
            ("Folder", 5, .create(["name": .text("Home")])),
            ("Label", 1, .create(["name": .text("red")])),
            ("Label", 2, .create(["name": .text("RED")])),
            ("Note", 3, .create(["day": .text("2026-03-01"), "cost": .text("2.50"), "labels": .ids([NotebookModel.id(1)])])),
        ]
        for (entity, n, action) in commands {
            let reading = try ModelReplay.snapshot(log: store.log, model: NotebookModel.model)
            let decision = try ChronicleModel.Decider(NotebookModel.model)
                .decide(ChronicleModel.Command(entity: entity, id: NotebookModel.id(n), action: action), reading: reading)
            _ = try await ModelAppend.append(decision, to: store.log)
        }
        await store.close()
        return folder
    }

    /// Opens the store with `model`; the refusal's line, or nil when it opened. Checks a refusal wrote nothing.
    static func open(_ folder: TemporaryFolder, _ model: ChronicleModel) async throws -> String? {
        let log = try EventLog(path: folder.path + "/log")
        let before = (try log.head(), try log.modelRecords().map(\.version))
        log.close()
        do {
            await (try ChronicleStore(directory: folder.path, backgroundProjections: false, model: model)).close()
            return nil
        } catch let error as ChronicleError {
            let after = try EventLog(path: folder.path + "/log")
            #expect(try after.head() == before.0 && after.modelRecords().map(\.version) == before.1, "a refused model wrote to the store")
            after.close()
            return error.description
        }
    }

    @Test("a changed type, a new required field, a removed entity with events, a new unique rule the data breaks: refused")
    func whatDoesNotFitIsRefused() async throws {
        let folder = try await Self.notebookStore()
        defer { folder.remove() }
        let costAsInteger = try Self.version2 { entities in
            Self.edit(&entities, "Note") { note in
                let index = note.fields.firstIndex { $0.name == "cost" }!
                note.fields[index].type = .integer
            }
        }
        #expect(try await Self.open(folder, costAsInteger)?.contains(
            "model 'notebook', entity 'Note', field 'cost': its type changed from decimal in version 1 to integer: events written before would not read") == true)

        let requiredTitle = try Self.version2 { entities in
            Self.edit(&entities, "Note") { note in note.fields.append(ChronicleModel.Field(name: "title", type: .text)) }
        }
        #expect(try await Self.open(folder, requiredTitle)?.contains(
            "entity 'Note', field 'title': a new field must be optional or have a default") == true)

        let noLabels = try Self.version2 { entities in
            entities.removeAll { $0.name == "Label" }
            Self.edit(&entities, "Note") { note in note.fields.removeAll { $0.name == "labels" } }
        }
        #expect(try await Self.open(folder, noLabels)?.contains(
            "entity 'Note': its event type 'NoteLabeled' of version 1 is no longer declared: the store's events of it would not read") == true)

        let noFolders = try Self.version2 { entities in
            entities.removeAll { $0.name == "Folder" }
            Self.edit(&entities, "Note") { note in note.fields.removeAll { $0.name == "folderId" } }
        }
        #expect(try await Self.open(folder, noFolders)?.contains(
            "entity 'Folder': no longer declared, but the store holds its events (FolderCreated at position 1)") == true)

        let uniqueLabels = try Self.version2 { entities in
            Self.edit(&entities, "Label") { label in label.fields[0].unique = .caseFolded }
        }
        let refusal = try await Self.open(folder, uniqueLabels)
        #expect(refusal?.contains("entity 'Label', field 'name': now unique, but live entities \(NotebookModel.text(1)) and \(NotebookModel.text(2)) share \"RED\"") == true,
                "\(refusal ?? "opened")")
    }

    @Test("a new optional field, a new field with a default, a new unique rule the data keeps: opened and recorded")
    func whatFitsIsRecorded() async throws {
        let folder = try await Self.notebookStore()
        defer { folder.remove() }
        let fitting = try Self.version2 { entities in
            Self.edit(&entities, "Note") { note in
                note.fields.append(ChronicleModel.Field(name: "title", type: .text, defaultValue: .text("untitled")))
                note.fields.append(ChronicleModel.Field(name: "mood", type: .integer, isOptional: true))
            }
            Self.edit(&entities, "Folder") { folder in folder.fields[0].unique = .exact }
        }
        #expect(try await Self.open(folder, fitting) == nil)
        let log = try EventLog(path: folder.path + "/log")
        #expect(try log.modelRecords().map(\.version) == [1, 2])
        let replayed = try ModelReplay.snapshot(log: log, model: fitting)
        log.close()
        #expect(replayed.snapshot.shown("Note").first?.values["title"] == .text("untitled"), "events written before read the default")
    }

    @Test("a field whose type changed with a conversion: the store opens, and events written before read converted")
    func aConvertedFieldOpensTheStore() async throws {
        let folder = try TemporaryFolder("model-conversion")
        defer { folder.remove() }
        let first = try ChronicleModel("shelf", version: 1) { model in
            model.entity("Book") { book in
                book.text("title", .notBlank)
                book.integer("rating", optional: true)
            }
        }
        let second = try ChronicleModel("shelf", version: 2) { model in
            model.entity("Book") { book in
                book.text("title", .notBlank)
                book.decimal("rating", optional: true)
                book.convert("rating", from: .integer)
            }
        }
        var store = try ChronicleStore(directory: folder.path, backgroundProjections: false, model: first)
        let dune = try await store.create("Book", ["title": "Dune", "rating": 4])
        await store.close()
        store = try ChronicleStore(directory: folder.path, backgroundProjections: false, model: second)
        #expect(try await store.entity("Book", id: dune.id)?.values["rating"] == .text("4"))
        _ = try await store.update("Book", dune.id, ["rating": "4.5"])
        #expect(try await store.entity("Book", id: dune.id)?.values["rating"] == .text("4.5"))
        let replayed = try ModelReplay.snapshot(log: store.log, model: second)
        #expect(replayed.snapshot.shown("Book") == (try await store.entities("Book")))
        await store.close()
    }
}

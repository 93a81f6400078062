import ChronicleSchema
import ChronicleTodoModel
import Foundation
import Testing

/// Declaring a model, checking it, and its record: the bytes a store keeps.
@Suite struct ChronicleModelTests {
    /// A model Chronicle's sources never mention: notes in folders, with labels.
    static func notes(version: Int = 1, _ extra: (inout ChronicleModel.EntityDeclaration) -> Void = { _ in }) throws -> ChronicleModel {
        try ChronicleModel("notes", version: version) { model in
            model.entity("Folder") { folder in
                folder.text("name", .notBlank, .maxLength(80), unique: .caseFolded)
            }
            model.entity("Note") { note in
                note.text("body", .maxLength(10_000))
                note.day("day")
                note.decimal("cost", optional: true)
                note.boolean("pinned", default: .boolean(false))
                note.reference("folderId", to: "Folder", onParentDeletion: .deleteWithParent)
                note.references("labels", to: "Label")
                extra(&note)
            }
            model.entity("Label") { label in
                label.text("name", .notBlank, .lowercased)
            }
            model.aggregate("NotesPerDay", of: "Note", groupedBy: "day") { day in
                day.count("notes")
                day.count("pinned", where: "pinned")
                day.sum("spent", of: "cost")
            }
        }
    }

    @Test func aDeclaredModelHasWhatWasDeclared() throws {
        let model = try Self.notes()
        #expect(model.entities.map(\.name) == ["Folder", "Note", "Label"])
        let note = try #require(model.entity(named: "Note"))
        #expect(note.stream == "note" && model.entity(streamPrefix: "note") == note)
        #expect(note.eventTypes == ["NoteCreated", "NoteUpdated", "NoteDeleted", "NoteRestored"])
        #expect(note.field(named: "labels")?.member == "labelId")
        #expect(note.field(named: "folderId")?.type == .reference("Folder"))
        #expect(model.aggregates.first?.key == "day")
    }

    @Test func theRecordIsSortedJSONAndReadsBackAsTheSameModel() throws {
        let model = try ChronicleModel("tiny", version: 3) { model in
            model.entity("Item") { item in
                item.integer("count", .range(0...9), default: .integer(1))
            }
        }
        let expected = #"{"aggregates":[],"entities":[{"eventSchemaVersion":1,"events":{"created":"ItemCreated","deleted":"ItemDeleted","#
            + #""restored":"ItemRestored","updated":"ItemUpdated"},"fields":[{"default":1,"name":"count","optional":false,"#
            + #""rules":[{"max":9,"min":0,"rule":"range"}],"type":"integer"}],"name":"Item","stream":"item"}],"name":"tiny","version":3}"#
        #expect(String(decoding: model.record(), as: UTF8.self) == expected)
        for declared in [model, try Self.notes(), TodoAppModel.model] {
            let read = try ChronicleModel(record: declared.record())
            #expect(read == declared)
            #expect(read.record() == declared.record())
        }
    }

    @Test func theTodoAppsModelIsTheDocumentedOne() throws {
        let model = TodoAppModel.model
        #expect(model.name == "todo-app" && model.version == 1)
        #expect(model.entities.map(\.name) == ["User", "Todo", "Tag"])
        let todo = try #require(model.entity(named: "Todo"))
        #expect(todo.eventTypes == ["TodoCreated", "TodoUpdated", "TodoDeleted", "TodoRestored",
                                    "TodoCompleted", "TodoReopened", "TodoTagged", "TodoUntagged"])
        #expect(todo.field(named: "tags")?.member == "tagId")
        #expect(model.entity(named: "Tag")?.field(named: "name")?.unique == .caseFolded)
        #expect(model.entity(named: "Tag")?.eventSchemaVersion == 2)
        #expect(model.aggregates.map(\.name) == ["DailyStat"])
        #expect(model.aggregates.first?.measures.map(\.name) == ["total", "completed"])
    }

    @Test("an index is declared on a field, kept in the record, and absent from records without one")
    func indexesInTheRecord() throws {
        let model = try ChronicleModel("indexed", version: 1) { model in
            model.entity("Note") { note in
                note.day("day")
                note.text("title")
                note.index("day")
            }
        }
        let record = String(decoding: model.record(), as: UTF8.self)
        #expect(record.contains(#"{"indexed":true,"name":"day","optional":false,"type":"day"}"#), "\(record)")
        #expect(!record.contains(#""indexed":false"#))
        #expect(try ChronicleModel(record: model.record()) == model)
        #expect(model.entity(named: "Note")?.fields.map(\.isIndexed) == [true, false])
        // The todo app's record is as every earlier release wrote it: no field is indexed.
        #expect(!String(decoding: TodoAppModel.model.record(), as: UTF8.self).contains("indexed"))
    }

    @Test("a renamed field: recorded with its former names, events under the old name read, a new version accepted")
    func renamedField() throws {
        let first = try ChronicleModel("books", version: 1) { model in
            model.entity("Book") { $0.text("heading", .notBlank) }
        }
        let second = try ChronicleModel("books", version: 2) { model in
            model.entity("Book") { book in
                book.text("title", .notBlank)
                book.rename("heading", to: "title")
            }
        }
        #expect(String(decoding: second.record(), as: UTF8.self).contains(#""formerly":["heading"]"#))
        #expect(try ChronicleModel(record: second.record()) == second)
        let evolution = try second.evolution(from: first)
        #expect(evolution.removedEntities.isEmpty && evolution.newlyUnique.isEmpty)
        let id = UUID()
        let reader = ChronicleModel.EventReader(second)
        let old = try reader.read(type: "BookCreated", stream: "book-\(id.uuidString.lowercased())", data: Data(#"{"heading":"Dune"}"#.utf8))
        #expect(old.change == .created(["title": "Dune"]))
        let new = try reader.read(type: "BookUpdated", stream: "book-\(id.uuidString.lowercased())", data: Data(#"{"title":"Emma"}"#.utf8))
        #expect(new.change == .updated(["title": "Emma"]))
        // Renamed to another type, the old events would not read: refused.
        let retyped = try ChronicleModel("books", version: 3) { model in
            model.entity("Book") { book in
                book.integer("title", optional: true)
                book.rename("heading", to: "title")
            }
        }
        #expect(throws: ChronicleModelError.self) { try retyped.evolution(from: first) }
    }

    /// Each wrong declaration, and the one line that refuses it.
    @Test(arguments: [
        ("a reference to an undeclared entity", "model 'bad', entity 'Note', field 'folderId': refers to 'Folder', which the model does not declare"),
        ("an entity declared twice", "model 'bad', entity 'Note': declared twice"),
        ("an event type of another entity", "model 'bad', entity 'Tag': its event type 'NoteDeleted' is also entity 'Note''s"),
        ("a range on text", "model 'bad', entity 'Note', field 'body': the rule range does not apply to a text field"),
        ("a day default that is no day", "model 'bad', entity 'Note', field 'day': its default does not fit a day field"),
        ("a unique integer", "model 'bad', entity 'Note', field 'rank': only a text field can be unique"),
        ("a field named id", "model 'bad', entity 'Note', field 'id': 'id' is every entity's own"),
        ("a count over text", "model 'bad', aggregate 'PerDay', field 'body': a count's condition must be a boolean field of 'Note'"),
        ("a sum over a day", "model 'bad', aggregate 'PerDay', field 'day': a sum must be over an integer, number or decimal field of 'Note'"),
        ("a stream prefix with a dash", "model 'bad', entity 'Note': its stream prefix 'my-note' must be 1 to 32 lowercase letters and digits, starting with a letter"),
        ("a pattern that is no regular expression", "model 'bad', entity 'Note', field 'body': the pattern '([' is not a regular expression"),
        ("an index of an undeclared field", "model 'bad', entity 'Note', field 'rank': an index of a field the entity does not declare (declare it first)"),
        ("an index of a set", "model 'bad', entity 'Note', field 'links': a set cannot be indexed (its members are, without saying: query it equal to one)"),
        ("a rename of an undeclared field", "model 'bad', entity 'Note', field 'title': a rename of a field the entity does not declare (declare it first)"),
        ("a rename from a field still declared", "model 'bad', entity 'Note', field 'body': its former name 'day' must be a field name no other field has, now or before"),
    ])
    func aWrongModelIsRefusedWithOneLine(_ wrong: String, _ message: String) {
        #expect(throws: ChronicleModelError.self, "\(wrong)") {
            do {
                _ = try Self.build(wrong)
            } catch {
                #expect(String(describing: error) == message)
                throw error
            }
        }
    }

    /// A model of one `Note` (body, day, done) with the wrong part `wrong` names.
    static func build(_ wrong: String) throws -> ChronicleModel {
        if wrong == "a unique integer" {
            let note = ChronicleModel.Entity(name: "Note", stream: "note", events: .standard(for: "Note"),
                                             fields: [ChronicleModel.Field(name: "rank", type: .integer, unique: .exact)])
            let model = ChronicleModel(name: "bad", version: 1, entities: [note])
            try model.validate()
            return model
        }
        return try ChronicleModel("bad", version: 1) { model in
            model.entity("Note", stream: wrong == "a stream prefix with a dash" ? "my-note" : nil) { note in
                switch wrong {
                case "a range on text": note.text("body", .range(0...1))
                case "a pattern that is no regular expression": note.text("body", .pattern("(["))
                default: note.text("body", .notBlank)
                }
                note.day("day", default: wrong == "a day default that is no day" ? .text("2026-02-30") : nil)
                note.boolean("done")
                if wrong == "a reference to an undeclared entity" { note.reference("folderId", to: "Folder") }
                if wrong == "a field named id" { note.text("id") }
                if wrong == "an index of an undeclared field" { note.index("rank") }
                if wrong == "a rename of an undeclared field" { note.rename("heading", to: "title") }
                if wrong == "a rename from a field still declared" { note.rename("day", to: "body") }
                if wrong == "an index of a set" {
                    note.references("links", to: "Note")
                    note.index("links")
                }
            }
            if wrong == "an entity declared twice" { model.entity("Note") { _ in } }
            if wrong == "an event type of another entity" {
                model.entity("Tag", events: .init(created: "TagCreated", updated: "TagUpdated", deleted: "NoteDeleted", restored: "TagRestored")) { _ in }
            }
            if wrong.hasPrefix("a count") || wrong.hasPrefix("a sum") {
                model.aggregate("PerDay", of: "Note", groupedBy: "day") { day in
                    if wrong.hasPrefix("a count") { day.count("n", where: "body") } else { day.sum("n", of: "day") }
                }
            }
        }
    }

    @Test(arguments: [
        ("[1,2", "the recorded model cannot be read: not JSON"),
        (#"{"name":"x","version":1}"#, "the recorded model cannot be read: member 'entities' missing at the top"),
        (#"{"name":"x","version":1,"entities":[{"name":"A","stream":"a","eventSchemaVersion":1,"events":{"created":"AC","updated":"AU","deleted":"AD","restored":"AR"},"fields":[{"name":"f","type":"colour"}]}]}"#,
         "the recorded model cannot be read: an unknown value at entities[0].fields[0].type"),
        (#"{"name":"x","version":1,"entities":[{"name":"A","stream":"a","eventSchemaVersion":1,"events":{"created":"AC","updated":"AU","deleted":"AD","restored":"AR"},"fields":[{"name":"f","type":"text","rules":[{"rule":"maxLength","value":"9"}]}]}]}"#,
         "the recorded model cannot be read: a member of the wrong type at entities[0].fields[0].rules[0].value"),
        (#"{"name":"x","version":0,"entities":[]}"#, "model 'x': its version must be 1 or more, not 0"),
    ])
    func aDamagedRecordIsRefusedWithOneLine(_ text: String, _ message: String) {
        #expect(throws: ChronicleModelError.self) {
            do {
                _ = try ChronicleModel(record: Data(text.utf8))
            } catch {
                #expect(String(describing: error) == message)
                throw error
            }
        }
    }
}

import ChronicleSchema
import ChronicleTodoModel
import Foundation
import Testing

/// Reading stored events by a model alone: what each event does, and the refusals.
@Suite struct ModelEventReaderTests {
    static let id = UUID(uuidString: "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee")!
    static let other = UUID(uuidString: "0190aaaa-bbbb-7ccc-8ddd-ffffffffffff")!
    let reader = ChronicleModel.EventReader(TodoAppModel.model)

    func read(_ type: String, _ data: String, stream: String = "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee",
              schemaVersion: Int = 1) throws(ChronicleModel.EventProblem) -> ChronicleModel.Event {
        try reader.read(type: type, stream: stream, data: Data(data.utf8), schemaVersion: schemaVersion)
    }

    func problem(_ type: String, _ data: String, stream: String = "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee",
                 schemaVersion: Int = 1) -> String {
        do {
            _ = try read(type, data, stream: stream, schemaVersion: schemaVersion)
            return "read"
        } catch {
            return error.description
        }
    }

    @Test func nullClearsInAnUpdateOnly() throws {
        // Notes of a notebook: an optional decimal, an optional text that keeps no empty text.
        let notes = try ChronicleModel("notes", version: 1) { model in
            model.entity("Note") { note in
                note.day("day")
                note.decimal("cost", optional: true)
                note.text("body", .emptyIsAbsent, optional: true)
            }
        }
        let reader = ChronicleModel.EventReader(notes)
        let stream = "note-" + Self.id.uuidString.lowercased()
        func read(_ type: String, _ data: String) throws -> ChronicleModel.Event.Change {
            try reader.read(type: type, stream: stream, data: Data(data.utf8)).change
        }
        #expect(try read("NoteUpdated", #"{"body":null,"cost":null}"#) == .updated(["cost": .null]))
        #expect(try read("NoteUpdated", #"{"body":"","cost":"1.5"}"#) == .updated(["body": .text(""), "cost": .text("1.5")]))
        #expect(try read("NoteCreated", #"{"day":"2026-03-01","cost":null}"#) == .created(["day": .text("2026-03-01")]))
        // The fold: null clears, and so does the empty body.
        var snapshot = ChronicleModel.Snapshot(notes)
        snapshot.apply(try reader.read(type: "NoteCreated", stream: stream, data: Data(#"{"day":"2026-03-01","cost":"2","body":"b"}"#.utf8)))
        snapshot.apply(try reader.read(type: "NoteUpdated", stream: stream, data: Data(#"{"body":"","cost":null}"#.utf8)))
        #expect(snapshot.state(of: "Note", id: Self.id)?.values == ["day": .text("2026-03-01")])
    }

    @Test func eachKindOfEventSaysWhatItDoes() throws {
        let created = try read("TodoCreated", #"{"deadline":"2026-03-01","title":"Pay rent","userId":"0190AAAA-BBBB-7CCC-8DDD-FFFFFFFFFFFF","extra":[1,{"a":2}]}"#)
        #expect(created == ChronicleModel.Event(type: "TodoCreated", entity: "Todo", id: Self.id, change: .created([
            "deadline": .text("2026-03-01"), "title": .text("Pay rent"), "userId": .text(Self.other.uuidString.lowercased()),
        ])))
        #expect(try read("TodoUpdated", #"{"memo":null,"title":"Rent"}"#).change == .updated(["title": .text("Rent")]))
        #expect(try read("TodoCompleted", "{}").change == .set(field: "isCompleted", to: true))
        #expect(try read("TodoReopened", "{}").change == .set(field: "isCompleted", to: false))
        #expect(try read("TodoTagged", #"{"tagId":"0190aaaa-bbbb-7ccc-8ddd-ffffffffffff"}"#).change == .added(field: "tags", member: Self.other))
        #expect(try read("TodoUntagged", #"{"tagId":"0190aaaa-bbbb-7ccc-8ddd-ffffffffffff"}"#).change == .removed(field: "tags", member: Self.other))
        #expect(try read("TodoDeleted", "{}").change == .deleted)
        #expect(try read("TodoRestored", "{}").change == .restored)
        #expect(try read("UserCreated", #"{"age":36,"name":"Ada"}"#, stream: "user-\(Self.id.uuidString.lowercased())").change
                == .created(["age": .integer(36), "name": .text("Ada")]))
        #expect(try read("TodoUpdated", #"{"deadline":"2026-03-02","title":"B"}"#).writes.map(\.field) == ["deadline", "title"])
        #expect(try read("TodoTagged", #"{"tagId":"0190aaaa-bbbb-7ccc-8ddd-ffffffffffff"}"#).writes
                == [ChronicleModel.FieldWrite(field: "tags", member: Self.other)])
    }

    @Test func anOlderShapeIsReadComposedAndANewerOneRefused() throws {
        let decomposed = "E\u{301}cole"
        let tag = "tag-\(Self.id.uuidString.lowercased())"
        let old = try read("TagCreated", ##"{"color":"#aabbcc","name":"\##(decomposed)"}"##, stream: tag, schemaVersion: 1)
        guard case .created(let values) = old.change, case .text(let name)? = values["name"] else { Issue.record("not a creation"); return }
        #expect(Array(name.unicodeScalars) == Array("\u{C9}cole".unicodeScalars))
        let current = try read("TagCreated", ##"{"color":"#aabbcc","name":"\##(decomposed)"}"##, stream: tag, schemaVersion: 2)
        guard case .created(let kept) = current.change, case .text(let asStored)? = kept["name"] else { Issue.record("not a creation"); return }
        #expect(Array(asStored.unicodeScalars) == Array(decomposed.unicodeScalars))
        #expect(problem("TagCreated", ##"{"color":"#aabbcc","name":"A"}"##, stream: tag, schemaVersion: 3)
                == "TagCreated data of schema version 3 is newer than model 'todo-app' version 1 reads (2)")
    }

    @Test(arguments: [
        ("TodoFinished", "{}", "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "unknown event type 'TodoFinished'"),
        ("TodoCompleted", "{}", "user-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoCompleted stream 'user-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee' is not 'todo-<lowercase uuid>'"),
        ("TodoCompleted", "{}", "todo-0190AAAA-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoCompleted stream 'todo-0190AAAA-bbbb-7ccc-8ddd-eeeeeeeeeeee' is not 'todo-<lowercase uuid>'"),
        ("TodoCompleted", "[]", "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoCompleted data must be a JSON object (got an array)"),
        ("TodoCompleted", #"{"a":1,"a":2}"#, "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoCompleted data is not valid JSON"),
        ("TodoCreated", #"{"title":"A"}"#, "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoCreated data is missing 'deadline'"),
        ("TodoCreated", #"{"title":"A","deadline":"2026-02-30"}"#, "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoCreated data 'deadline' must be a real calendar day as YYYY-MM-DD (got \"2026-02-30\")"),
        ("TodoCreated", #"{"title":7,"deadline":"2026-02-03"}"#, "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoCreated data 'title' must be a string (got a number)"),
        ("TodoCreated", #"{"title":"A","deadline":"2026-02-03","userId":"nobody"}"#, "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoCreated data 'userId' must be a UUID (got \"nobody\")"),
        // Read straight into slots: the first field in the entity's order is named, whatever the
        // members' order; invalid JSON anywhere, even in a member passed over, comes first.
        ("TodoCreated", #"{"deadline":"2026-02-30","title":7}"#, "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoCreated data 'title' must be a string (got a number)"),
        ("TodoCreated", #"{"title":7,"deadline":"2026-02-03","x":[1,{"a":}]}"#, "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoCreated data is not valid JSON"),
        ("TodoUpdated", #"{"title":7,"title":8}"#, "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoUpdated data is not valid JSON"),
        ("TodoUpdated", #""title""#, "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoUpdated data must be a JSON object (got a string)"),
        ("UserUpdated", #"{"age":36.0}"#, "user-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "UserUpdated data 'age' must be an integer (got \"36.0\")"),
        ("UserUpdated", #"{"age":99999999999999999999}"#, "user-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "UserUpdated data 'age' must be a 64-bit integer (got \"99999999999999999999\")"),
        ("TodoTagged", #"{"tagId":"0190AAAA-BBBB-7CCC-8DDD-FFFFFFFFFFFF"}"#, "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoTagged data 'tagId' must be a lowercase UUID (got \"0190AAAA-BBBB-7CCC-8DDD-FFFFFFFFFFFF\")"),
        ("TodoTagged", "{}", "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "TodoTagged data is missing 'tagId'"),
        ("TodoCompleted", "{}", "todo-0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "schema 0"),
    ])
    func badEventsAreRefusedWithOneLine(type: String, data: String, stream: String, expected: String) {
        if expected == "schema 0" {
            #expect(problem(type, data, stream: stream, schemaVersion: 0) == "TodoCompleted schema version 0 is not valid")
            return
        }
        let found = problem(type, data, stream: stream)
        #expect(found.hasPrefix(expected), "\(found)")
        #expect(!found.contains("\n"))
    }
}

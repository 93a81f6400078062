import ChronicleSchema
import ChronicleTodoModel
import Foundation
import Testing

/// What a merge takes out of a pulled event whose writes later ones hold, and how a conflict
/// names a write.
@Suite struct ModelEventMergeTests {
    static let id = UUID(uuidString: "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee")!
    static let tag = UUID(uuidString: "0190aaaa-bbbb-7ccc-8ddd-ffffffffffff")!

    func event(_ change: ChronicleModel.Event.Change, type: String = "TodoUpdated") -> ChronicleModel.Event {
        ChronicleModel.Event(type: type, entity: "Todo", id: Self.id, change: change)
    }

    @Test func heldWritesAreTakenOutAndAnEventWithNoneLeftIsGone() {
        let update = event(.updated(["title": .text("A"), "memo": .text("B")]))
        #expect(update.without([]) == update)
        #expect(update.without([ChronicleModel.FieldWrite(field: "title")]) == event(.updated(["memo": .text("B")])))
        #expect(update.without([ChronicleModel.FieldWrite(field: "title"), ChronicleModel.FieldWrite(field: "memo")]) == nil)
        #expect(update.without([ChronicleModel.FieldWrite(field: "deadline")]) == update)

        let completed = event(.set(field: "isCompleted", to: true), type: "TodoCompleted")
        #expect(completed.without([ChronicleModel.FieldWrite(field: "isCompleted")]) == nil)
        let tagged = event(.added(field: "tags", member: Self.tag), type: "TodoTagged")
        #expect(tagged.without([ChronicleModel.FieldWrite(field: "tags", member: Self.tag)]) == nil)
        #expect(tagged.without([ChronicleModel.FieldWrite(field: "tags", member: Self.id)]) == tagged, "another member is another write")
    }

    @Test func creationsDeletionsAndRestorationsAreKeptWhole() {
        let held: Set = [ChronicleModel.FieldWrite(field: "title")]
        for change in [ChronicleModel.Event.Change.created(["title": .text("A")]), .deleted, .restored] {
            #expect(event(change).without(held) == event(change))
        }
    }

    @Test func aWriteIsNamedByItsFieldOrItsMemberWithoutId() throws {
        let todo = try #require(TodoAppModel.model.entity(named: "Todo"))
        #expect(ChronicleModel.FieldWrite(field: "title").label(in: todo) == "title")
        #expect(ChronicleModel.FieldWrite(field: "tags", member: Self.tag).label(in: todo)
                    == "tag 0190aaaa-bbbb-7ccc-8ddd-ffffffffffff")
        let notes = try ChronicleModel("notes", version: 1) { model in
            model.entity("Label") { label in label.text("name") }
            model.entity("Note") { note in
                note.references("labels", to: "Label", setBy: ChronicleModel.SetEvents(on: "NoteLabeled", off: "NoteUnlabeled"))
                note.references("watchers", to: "Label", member: "watcher")
            }
        }
        let note = try #require(notes.entity(named: "Note"))
        #expect(ChronicleModel.FieldWrite(field: "labels", member: Self.tag).label(in: note) == "label 0190aaaa-bbbb-7ccc-8ddd-ffffffffffff")
        #expect(ChronicleModel.FieldWrite(field: "watchers", member: Self.tag).label(in: note) == "watcher 0190aaaa-bbbb-7ccc-8ddd-ffffffffffff")
    }
}

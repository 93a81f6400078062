import ChronicleTodoDomain
import Foundation
import Testing
import ChronicleTestSupport

/// The versions of the todo app's events' shapes, as its model declares them, and how an older
/// shape is read.
struct TodoAppEventSchemaVersionTests {
    let decomposed = "E\u{301}mile"   // "E" and a combining acute accent
    let composed = "\u{C9}mile"       // "É" as one scalar

    @Test func tagCreationsAndUpdatesAreWrittenAtVersionTwoAndEveryOtherEventAtOne() {
        let (user, todo, tag) = (uuid(1), uuid(2), uuid(3))
        let day = try! CalendarDay(year: 2026, month: 3, day: 1)
        let events: [(TodoAppEvent, UInt16)] = [
            (.userCreated(id: user, name: "Ada", age: 36), 1), (.userUpdated(id: user, name: "Al", age: nil), 1),
            (.userDeleted(id: user), 1), (.userRestored(id: user), 1),
            (.todoCreated(id: todo, title: "Pay", deadline: day, userId: nil, memo: nil), 1),
            (.todoUpdated(id: todo, title: nil, deadline: day, memo: nil), 1), (.todoCompleted(id: todo), 1),
            (.todoReopened(id: todo), 1), (.todoDeleted(id: todo), 1), (.todoRestored(id: todo), 1),
            (.todoTagged(id: todo, tagId: tag), 1), (.todoUntagged(id: todo, tagId: tag), 1),
            (.tagCreated(id: tag, name: "A", color: "#000000"), 2), (.tagUpdated(id: tag, name: "B", color: nil), 2),
            (.tagDeleted(id: tag), 1), (.tagRestored(id: tag), 1),
        ]
        #expect(Set(events.map(\.0.type)) == Set(TodoAppEvent.allTypes))
        for (event, version) in events {
            #expect(event.schemaVersion == version, "\(event.type)")
        }
    }

    @Test func aVersionOneTagNameIsReadInCanonicalComposition() throws {
        let stream = TodoAppEvent.tagStream(uuid(1))
        let v1 = try TodoAppEvent(type: "TagCreated", stream: stream,
                                 data: Data(##"{"color":"#000000","name":"\##(decomposed)"}"##.utf8), schemaVersion: 1)
        guard case .tagCreated(_, let name, _) = v1 else { Issue.record("\(v1)"); return }
        #expect(Array(name.unicodeScalars) == Array(composed.unicodeScalars))
        let renamed = try TodoAppEvent(type: "TagUpdated", stream: stream, data: Data(#"{"name":"\#(decomposed)"}"#.utf8))
        guard case .tagUpdated(_, let newName?, nil) = renamed else { Issue.record("\(renamed)"); return }
        #expect(Array(newName.unicodeScalars) == Array(composed.unicodeScalars))
        // Version 2 data is read as it is; the upcaster leaves other members alone.
        let v2 = try TodoAppEvent(type: "TagCreated", stream: stream,
                                 data: Data(##"{"color":"#000000","name":"\##(composed)"}"##.utf8), schemaVersion: 2)
        #expect(v2 == v1)
    }

    @Test func aVersionNewerThanTheModelReadsIsRefusedWithALineNamingTheModel() {
        let stream = TodoAppEvent.tagStream(uuid(1))
        #expect(throws: DomainError.invalidEvent("TagCreated data of schema version 3 is newer than model 'todo-app' version 1 reads (2)")) {
            try TodoAppEvent(type: "TagCreated", stream: stream, data: Data(##"{"color":"#000000","name":"A"}"##.utf8), schemaVersion: 3)
        }
        #expect(throws: DomainError.invalidEvent("UserDeleted data of schema version 2 is newer than model 'todo-app' version 1 reads (1)")) {
            try TodoAppEvent(type: "UserDeleted", stream: TodoAppEvent.userStream(uuid(1)), data: Data("{}".utf8), schemaVersion: 2)
        }
        #expect(throws: DomainError.invalidEvent("TodoDeleted schema version 0 is not valid")) {
            try TodoAppEvent(type: "TodoDeleted", stream: TodoAppEvent.todoStream(uuid(1)), data: Data("{}".utf8), schemaVersion: 0)
        }
    }

    @Test func tagNamesAreWrittenInTheCurrentShape() throws {
        let name = try TodoAppInput.tagName(" \(decomposed) ")
        #expect(Array(name.unicodeScalars) == Array(composed.unicodeScalars))
    }
}

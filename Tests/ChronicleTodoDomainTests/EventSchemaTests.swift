import ChronicleTodoDomain
import Foundation
import Testing

/// ``EventSchema``: the versions of the events' shapes, and the upcasters, one by one.
struct EventSchemaTests {
    let decomposed = "E\u{301}mile"   // "E" and a combining acute accent
    let composed = "\u{C9}mile"       // "É" as one scalar

    @Test func tagEventsAreAtVersionTwoAndEveryOtherTypeAtOne() {
        #expect(EventSchema.currentVersion(of: "TagCreated") == 2)
        #expect(EventSchema.currentVersion(of: "TagUpdated") == 2)
        for type in DomainEvent.allTypes where !type.hasPrefix("Tag") || type == "TagDeleted" || type == "TagRestored" {
            #expect(EventSchema.currentVersion(of: type) == 1, "\(type)")
        }
        #expect(DomainEvent.tagCreated(id: uuid(1), name: "A", color: "#000000").schemaVersion == 2)
    }

    @Test func aVersionOneTagNameIsReadInCanonicalComposition() throws {
        let stream = DomainEvent.tagStream(uuid(1))
        let v1 = try DomainEvent(type: "TagCreated", stream: stream,
                                 data: Data(##"{"color":"#000000","name":"\##(decomposed)"}"##.utf8), schemaVersion: 1)
        guard case .tagCreated(_, let name, _) = v1 else { Issue.record("\(v1)"); return }
        #expect(Array(name.unicodeScalars) == Array(composed.unicodeScalars))
        let renamed = try DomainEvent(type: "TagUpdated", stream: stream, data: Data(#"{"name":"\#(decomposed)"}"#.utf8))
        guard case .tagUpdated(_, let newName?, nil) = renamed else { Issue.record("\(renamed)"); return }
        #expect(Array(newName.unicodeScalars) == Array(composed.unicodeScalars))
        // Version 2 data is read as it is; the upcaster leaves other members alone.
        let v2 = try DomainEvent(type: "TagCreated", stream: stream,
                                 data: Data(##"{"color":"#000000","name":"\##(composed)"}"##.utf8), schemaVersion: 2)
        #expect(v2 == v1)
    }

    @Test func aVersionNewerThanThisCodeReadsIsRefusedWithAnActionableLine() {
        let stream = DomainEvent.tagStream(uuid(1))
        #expect(throws: DomainError.invalidEvent("TagCreated data of schema version 3 is newer than this chronicle reads (2): upgrade chronicle")) {
            try DomainEvent(type: "TagCreated", stream: stream, data: Data(##"{"color":"#000000","name":"A"}"##.utf8), schemaVersion: 3)
        }
        #expect(throws: DomainError.invalidEvent("UserDeleted data of schema version 2 is newer than this chronicle reads (1): upgrade chronicle")) {
            try DomainEvent(type: "UserDeleted", stream: DomainEvent.userStream(uuid(1)), data: Data("{}".utf8), schemaVersion: 2)
        }
        #expect(throws: DomainError.invalidEvent("TodoDeleted schema version 0 is not valid")) {
            try DomainEvent(type: "TodoDeleted", stream: DomainEvent.todoStream(uuid(1)), data: Data("{}".utf8), schemaVersion: 0)
        }
    }

    @Test func tagCommandsWriteTheCurrentShape() throws {
        let created = try TagCommands.create(id: uuid(1), name: " \(decomposed) ", color: "#ABCDEF", nameHolder: nil)
        guard case .tagCreated(_, let name, _) = created else { Issue.record("\(created)"); return }
        #expect(Array(name.unicodeScalars) == Array(composed.unicodeScalars))
    }
}

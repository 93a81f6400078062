import Foundation
import Testing
import ChronicleReferee

/// The referee's fold of any declared model (`RefereeModelState`), one rule per test, on a
/// record and a server order written by hand as JSON.
@Suite struct RefereeModelTests {
    /// Folders (a name unique up to case), notes in folders (hidden while the folder is
    /// deleted), with a day, a decimal cost, a pin set by events of its own, labels; notes per day.
    static let record = Data(#"""
        {"aggregates":[{"entity":"Note","groupedBy":"day","key":"day","measures":[{"kind":"count","name":"notes"},
          {"field":"pinned","kind":"count","name":"pinned"},{"field":"cost","kind":"sum","name":"spent"}],"name":"NotesPerDay"}],
         "entities":[
          {"eventSchemaVersion":1,"events":{"created":"FolderCreated","deleted":"FolderDeleted","restored":"FolderRestored","updated":"FolderUpdated"},
           "fields":[{"name":"name","optional":false,"type":"text","unique":"caseFolded"}],"name":"Folder","stream":"folder"},
          {"eventSchemaVersion":1,"events":{"created":"NoteCreated","deleted":"NoteDeleted","restored":"NoteRestored","updated":"NoteUpdated"},
           "fields":[{"name":"body","optional":true,"rules":[{"rule":"emptyIsAbsent"}],"type":"text","formerly":["text"]},
                     {"name":"day","optional":false,"type":"day"},{"name":"cost","optional":true,"type":"decimal"},
                     {"default":false,"name":"pinned","optional":false,"setBy":{"off":"NoteUnpinned","on":"NotePinned"},"type":"boolean"},
                     {"entity":"Folder","name":"folderId","onParentDeletion":"hideWithParent","optional":true,"type":"reference"},
                     {"entity":"Folder","member":"folderId","name":"folders","optional":false,"setBy":{"off":"NoteUnfiled","on":"NoteFiled"},"type":"references"}],
           "name":"Note","stream":"note"}],
         "name":"notebook","version":1}
        """#.utf8)

    static let f1 = "0193a1b2-0000-7000-8000-00000000000f", f2 = "0193a1b2-0000-7000-8000-0000000000f2"
    static let n1 = "0193a1b2-0000-7000-8000-0000000000a1", n2 = "0193a1b2-0000-7000-8000-0000000000a2"

    /// Folds (stream, type, data) in server order.
    func fold(_ events: [(String, String, String)]) throws -> RefereeModelState {
        let objects = events.enumerated().map { index, event in
            """
            {"position":\(index + 1),"id":"0193a1b2-0000-7000-8000-\(String(format: "%012d", index + 1))","stream":"\(event.0)",\
            "version":1,"type":"\(event.1)","timestamp":"2026-11-22T02:30:00.000Z","origin":"d","data":\(event.2)}
            """
        }
        return RefereeModelState.fold(try RefereeEvent.parseArray(json: Data("[\(objects.joined(separator: ","))]".utf8)),
                                      model: try RefereeModel(record: Self.record))
    }

    @Test func updatesWriteTheFieldsTheyGiveAndNullOrEmptyTextClears() throws {
        let state = try fold([
            ("note-\(Self.n1)", "NoteCreated", #"{"day":"2026-03-01","cost":"2.50","text":"milk","extra":1}"#),
            ("note-\(Self.n1)", "NoteUpdated", #"{"cost":null,"body":null}"#),
            ("note-\(Self.n1)", "NotePinned", "{}"),
        ])
        #expect(state.shown("Note")[Self.n1] == ["body": .string("milk"), "day": .string("2026-03-01"), "cost": .null,
                                                 "pinned": .bool(true), "folderId": .null, "folders": .array([])])
        let emptied = try fold([
            ("note-\(Self.n1)", "NoteCreated", #"{"day":"2026-03-01","body":"milk"}"#),
            ("note-\(Self.n1)", "NoteUpdated", #"{"body":""}"#),
        ])
        #expect(emptied.shown("Note")[Self.n1]?["body"] == .null)
    }

    @Test func aDeletedParentHidesItsChildrenUntilRestored() throws {
        let created = [
            ("folder-\(Self.f1)", "FolderCreated", #"{"name":"Home"}"#),
            ("note-\(Self.n1)", "NoteCreated", #"{"day":"2026-03-01","folderId":"\#(Self.f1)"}"#),
            ("note-\(Self.n2)", "NoteCreated", #"{"day":"2026-03-01"}"#),
            ("note-\(Self.n2)", "NoteFiled", #"{"folderId":"\#(Self.f1)"}"#),
            ("folder-\(Self.f1)", "FolderDeleted", "{}"),
        ]
        let deleted = try fold(created)
        #expect(Set(deleted.shown("Note").keys) == [Self.n2])
        #expect(deleted.shown("Note")[Self.n2]?["folders"] == .array([]))
        #expect(deleted.rows("NotesPerDay").first?.value["notes"] == .integer(1))
        let restored = try fold(created + [("folder-\(Self.f1)", "FolderRestored", "{}")])
        #expect(Set(restored.shown("Note").keys) == [Self.n1, Self.n2])
        #expect(restored.shown("Note")[Self.n2]?["folders"] == .array([.string(Self.f1)]))
    }

    @Test func collidingUniqueValuesAreShownInTheOrderOfTheirWrites() throws {
        let state = try fold([
            ("folder-\(Self.f2)", "FolderCreated", #"{"name":"work"}"#),
            ("folder-\(Self.f1)", "FolderCreated", #"{"name":" WORK"}"#),
        ])
        #expect(state.shown("Folder")[Self.f2]?["name"] == .string("work"))
        #expect(state.shown("Folder")[Self.f1]?["name"] == .string(" WORK (2)"))
    }

    @Test func rowsCountAndSumTheShownEntitiesExactly() throws {
        let state = try fold([
            ("note-\(Self.n1)", "NoteCreated", #"{"day":"2026-03-01","cost":"0.10"}"#),
            ("note-\(Self.n2)", "NoteCreated", #"{"day":"2026-03-01","cost":"0.20"}"#),
            ("note-\(Self.n2)", "NotePinned", "{}"),
        ])
        #expect(Array(state.rows("NotesPerDay").values) == [["day": .string("2026-03-01"), "notes": .integer(2), "pinned": .integer(1),
                                                            "spent": .string("0.3")]])
    }

    @Test func anEventThatDoesNotFitChangesNothing() throws {
        let state = try fold([
            ("note-\(Self.n1)", "NoteCreated", #"{"cost":"1"}"#),                   // no day
            ("note-\(Self.n2)", "NoteCreated", #"{"day":7}"#),                      // a day that is no text
        ])
        #expect(state.shown("Note").isEmpty)
    }
}

import ChronicleSchema
import ChronicleTestSupport
import Foundation
import Testing

/// The generic fold of a model's events: lifecycles, parents, sets, collisions, aggregates.
@Suite struct ModelSnapshotTests {
    static let model = NotebookModel.model

    var snapshot = ChronicleModel.Snapshot(Self.model)
    let reader = ChronicleModel.EventReader(Self.model)

    static func id(_ n: Int) -> UUID { NotebookModel.id(n) }

    mutating func apply(_ type: String, _ entity: String, _ n: Int, _ data: String = "{}", rank: ChronicleModel.EventRank? = nil) throws {
        let event = try reader.read(type: type, stream: "\(entity)-\(Self.id(n).uuidString.lowercased())", data: Data(data.utf8))
        if let rank { snapshot.apply(event, rank: rank) } else { snapshot.apply(event) }
    }

    func json(_ entity: String) -> [String] { snapshot.shown(entity).map(Self.model.json(of:)) }

    @Test mutating func aDeletionHidesAndARestorationBringsBackAsItWas() throws {
        try apply("NoteCreated", "note", 1, #"{"day":"2026-03-01","body":"a"}"#)
        try apply("NoteDeleted", "note", 1)
        try apply("NoteUpdated", "note", 1, #"{"body":"changed while deleted"}"#)
        try apply("NoteCreated", "note", 1, #"{"day":"2026-04-01","body":"created twice"}"#)
        #expect(json("Note").isEmpty)
        #expect(snapshot.state(of: "Note", id: Self.id(1))?.isDeleted == true)
        try apply("NoteRestored", "note", 1)
        #expect(json("Note") == [#"{"id":"0190aaaa-bbbb-7ccc-8ddd-000000000001","body":"a","day":"2026-03-01","cost":null,"pinned":false,"folderId":null,"labels":[]}"#])
        try apply("NoteUpdated", "note", 1, #"{"body":""}"#)
        #expect(snapshot.shown("Note", id: Self.id(1))?.values["body"] == nil)
    }

    @Test mutating func aParentsDeletionHidesItsChildrenUntilItComesBack() throws {
        try apply("FolderCreated", "folder", 1, #"{"name":"Home"}"#)
        try apply("NoteCreated", "note", 2, #"{"day":"2026-03-01","folderId":"0190aaaa-bbbb-7ccc-8ddd-000000000001"}"#)
        try apply("NoteCreated", "note", 3, #"{"day":"2026-03-01","folderId":"0190aaaa-bbbb-7ccc-8ddd-000000000009"}"#)
        try apply("FolderDeleted", "folder", 1)
        // The note of a folder never seen here stays shown; the deleted folder's is hidden.
        #expect(snapshot.shown("Note").map(\.id) == [Self.id(3)])
        #expect(snapshot.rows(of: "NotesPerDay")?.first?.measures["notes"] == .integer(1))
        try apply("FolderRestored", "folder", 1)
        #expect(snapshot.shown("Note").map(\.id) == [Self.id(2), Self.id(3)])
    }

    @Test mutating func aSetShowsItsLiveMembersMergedOneByOne() throws {
        try apply("NoteCreated", "note", 1, #"{"day":"2026-03-01"}"#)
        try apply("LabelCreated", "label", 7, #"{"name":"red"}"#)
        try apply("LabelCreated", "label", 8, #"{"name":"blue"}"#)
        for (type, label) in [("NoteLabeled", 8), ("NoteLabeled", 7), ("NoteLabeled", 9), ("NoteUnlabeled", 8), ("NoteLabeled", 7)] {
            try apply(type, "note", 1, #"{"labelId":"\#(Self.id(label).uuidString.lowercased())"}"#)
        }
        #expect(snapshot.shown("Note").first?.members(of: "labels") == [Self.id(7)])   // 9 was never created here
        try apply("LabelDeleted", "label", 7)
        #expect(snapshot.shown("Note").first?.members(of: "labels") == [])
        try apply("LabelRestored", "label", 7)
        try apply("LabelCreated", "label", 9, #"{"name":"late"}"#)
        #expect(snapshot.shown("Note").first?.members(of: "labels") == [Self.id(7), Self.id(9)])
    }

    @Test mutating func collidingUniqueValuesAreToldApartInTheMergesOrder() throws {
        // Folder 2's name was written first in the merge's order (rank 3), folder 1's later (rank 5).
        try apply("FolderCreated", "folder", 1, #"{"name":"Work"}"#, rank: ChronicleModel.EventRank(upstream: 5, position: 1))
        try apply("FolderCreated", "folder", 2, #"{"name":"WORK"}"#, rank: ChronicleModel.EventRank(upstream: 3, position: 2))
        try apply("FolderCreated", "folder", 3, #"{"name":" work "}"#, rank: ChronicleModel.EventRank(upstream: nil, position: 3))
        #expect(snapshot.shown("Folder").map { $0.values["name"] } == [.text("Work (2)"), .text("WORK"), .text(" work  (3)")])
        try apply("FolderDeleted", "folder", 2, rank: ChronicleModel.EventRank(upstream: nil, position: 4))
        #expect(snapshot.shown("Folder").map { $0.values["name"] } == [.text("Work"), .text(" work  (2)")])
        try apply("FolderUpdated", "folder", 1, #"{"name":"Play"}"#, rank: ChronicleModel.EventRank(upstream: nil, position: 5))
        #expect(snapshot.shown("Folder").map { $0.values["name"] } == [.text("Play"), .text(" work ")])
    }

    @Test mutating func aggregatesCountAndSumTheShownEntitiesPerKey() throws {
        try apply("NoteCreated", "note", 1, #"{"day":"2026-03-02","cost":"12.50"}"#)
        try apply("NoteCreated", "note", 2, #"{"day":"2026-03-02","cost":"0.75"}"#)
        try apply("NoteCreated", "note", 3, #"{"day":"2026-03-01"}"#)
        try apply("NoteCreated", "note", 4, #"{"day":"2026-03-03","cost":"1"}"#)
        try apply("NotePinned", "note", 2)
        try apply("NoteDeleted", "note", 4)
        let aggregate = try #require(Self.model.aggregates.first)
        #expect(try #require(snapshot.rows(of: "NotesPerDay")).map { Self.model.json(of: $0, in: aggregate) } == [
            #"{"day":"2026-03-01","notes":1,"pinned":0,"spent":"0"}"#,
            #"{"day":"2026-03-02","notes":2,"pinned":1,"spent":"13.25"}"#,
        ])
        #expect(snapshot.rows(of: "Nothing") == nil)
    }

    @Test mutating func forgettingAnEntityUndoesItsEvents() throws {
        try apply("FolderCreated", "folder", 1, #"{"name":"A"}"#)
        try apply("NoteCreated", "note", 2, #"{"day":"2026-03-01","folderId":"0190aaaa-bbbb-7ccc-8ddd-000000000001"}"#)
        try apply("FolderDeleted", "folder", 1)
        snapshot.forget(entity: "Folder", id: Self.id(1))
        #expect(snapshot.state(of: "Folder", id: Self.id(1)) == nil)
        #expect(snapshot.shown("Note").map(\.id) == [Self.id(2)])
    }
}

@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleLog
import Foundation
import ChronicleProjections
import Testing

/// A store on an app's own model: `create`, `update`, `delete`, `restore` and `perform` decide
/// by the model's rules; `entities` and `entity` read the stored read model of its entities
/// (`ModelStates`), which must always equal the fold of the whole log in the merge's order
/// (`ModelReplay`), through pulls that rank before this device's own writes.
@Suite("a store on an app's own model", .timeLimit(.minutes(5)))
struct StoredEntitiesTests {
    typealias Value = ChronicleModel.FieldValue

    static func open(_ folder: TemporaryFolder, _ name: String, model: ChronicleModel) throws -> ChronicleStore {
        try ChronicleStore(directory: folder.path + "/" + name, backgroundProjections: false,
                           logOptions: .init(noSync: true), model: model)
    }

    @Test("a notebook through the store: rules refuse, parents hide and come back, sets change per member")
    func notebookThroughTheStore() async throws {
        let folder = try TemporaryFolder("notebook")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        let home = try await store.create("Folder", ["name": .text("Home")])
        let red = try await store.create("Label", ["name": .text("red")])
        let note = try await store.create("Note", ["day": .text("2026-03-01"), "cost": .text("2.50"),
                                                   "folderId": .text(home.id.uuidString), "labels": .ids([red.id])])
        #expect(note.values["pinned"] == .boolean(false) && note.values["labels"] == .ids([red.id]))
        let pinned = try await store.update("Note", note.id, ["pinned": .boolean(true), "body": .text("milk")])
        #expect(pinned.values["pinned"] == .boolean(true) && pinned.values["body"] == .text("milk"))

        await #expect(throws: ChronicleError.refused(.init("a folder with name \" home \" already exists"))) {
            try await store.create("Folder", ["name": .text(" home ")])
        }
        await #expect(throws: ChronicleError.refused(.init("day must be a real calendar day as YYYY-MM-DD (got \"2026-02-30\")"))) {
            try await store.create("Note", ["day": .text("2026-02-30")])
        }
        // A label's deletion takes it out of the note's set as shown; its restoration puts it back.
        try await store.delete("Label", red.id)
        #expect(try await store.entity("Note", id: note.id)?.values["labels"] == .ids([]))
        try await store.restore("Label", red.id)
        #expect(try await store.entity("Note", id: note.id)?.values["labels"] == .ids([red.id]))
        // A folder's deletion hides its notes; its restoration shows them again, as they were.
        try await store.delete("Folder", home.id)
        #expect(try await store.entities("Note").isEmpty)
        #expect(try await store.entity("Note", id: note.id) == nil)
        try await store.restore("Folder", home.id)
        #expect(try await store.entities("Note") == [pinned])
        // The name is free again once its folder is deleted, and the restoration is refused while taken.
        try await store.delete("Folder", home.id)
        let other = try await store.create("Folder", ["name": .text("HOME")])
        await #expect(throws: ChronicleError.self) { try await store.restore("Folder", home.id) }
        #expect(try await store.entities("Folder").map(\.id) == [other.id])

        // Opened again, the stored states are read as they were left; a rebuild gives the same.
        await store.close()
        let again = try Self.open(folder, "store", model: NotebookModel.model)
        #expect(try await again.entities("Folder") == [other])
        let rebuilt = try ModelStates(path: folder.path + "/rebuilt", model: NotebookModel.model, log: again.log, noSync: true)
        try rebuilt.rebuild()
        for entity in ["Folder", "Note", "Label"] { #expect(try rebuilt.shown(entity) == (try await again.entities(entity))) }
        await again.close()
    }

    /// A note as an app reads it into a type of its own.
    struct NoteRow: ChronicleRecord, Equatable {
        struct Unreadable: Error, Equatable {}
        static let entity = "Note"
        let id: UUID
        let day: String
        let cost: String?
        let pinned: Bool
        let folder: UUID?
        let labels: [UUID]

        init(_ fields: borrowing ChronicleModel.Fields) throws {
            guard let day = fields.text("day") else { throw Unreadable() }
            if day == "2026-12-31" { throw Unreadable() }
            id = fields.id
            self.day = day
            cost = fields.text("cost")
            pinned = fields.boolean("pinned") ?? false
            folder = fields.reference("folderId")
            labels = fields.members(of: "labels")
        }
    }

    @Test("a reference asked for one parent, not indexed, reads that parent's children: the notes filtering them all finds")
    func referenceEqualityReadsTheParentsChildren() async throws {
        let folder = try TemporaryFolder("children-query")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        let work = try await store.create("Folder", ["name": "Work"])
        let home = try await store.create("Folder", ["name": "Home"])
        var notes: [UUID] = []
        for day in 1...6 {
            let note = try await store.create("Note", ["day": .text("2026-03-0\(day)"), "folderId": .id(day % 2 == 0 ? work.id : home.id)])
            notes.append(note.id)
        }
        _ = try await store.create("Note", ["day": "2026-03-09"])
        try await store.delete("Note", notes[1])
        try await store.update("Note", notes[0], ["folderId": .id(work.id)])
        try await store.update("Note", notes[3], ["folderId": .null])

        func asked(_ parent: UUID) async throws -> [ChronicleModel.EntityState] {
            try await store.entities("Note", where: "folderId", equals: .id(parent))
        }
        func filtered(_ parent: UUID) async throws -> [ChronicleModel.EntityState] {
            try await store.entities("Note").filter { $0.values["folderId"] == .id(parent) }
        }
        // Moved in, deleted, moved out: each folder's notes as they are now.
        #expect(Set(try await asked(work.id).map(\.id)) == [notes[0], notes[5]])
        #expect(Set(try await asked(home.id).map(\.id)) == [notes[2], notes[4]])
        for parent in [work.id, home.id] { #expect(try await asked(parent) == filtered(parent)) }
        // A folder with no notes, an id no entity has, and the text of an id in capitals.
        let empty = try await store.create("Folder", ["name": "Empty"])
        #expect(try await asked(empty.id).isEmpty)
        #expect(try await asked(UUID()).isEmpty)
        #expect(try await store.entities("Note", where: "folderId", equals: .text(work.id.uuidString.uppercased())).isEmpty)
        // A deleted folder's notes are hidden; restored, they are back.
        try await store.delete("Folder", work.id)
        #expect(try await asked(work.id).isEmpty)
        try await store.restore("Folder", work.id)
        let restored = try await asked(work.id)
        #expect(restored.count == 2)
        #expect(try await restored == filtered(work.id))
    }

    @Test("a set asked for one member reads that member's index: the notes filtering them all finds, through labels, deletions and a rebuild")
    func setMemberQueriesReadTheMembersIndex() async throws {
        let folder = try TemporaryFolder("member-query")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        let red = try await store.create("Label", ["name": "red"])
        let blue = try await store.create("Label", ["name": "blue"])
        let home = try await store.create("Folder", ["name": "Home"])
        var notes: [UUID] = []
        for day in 1...6 {
            let labels: [UUID] = day % 3 == 0 ? [red.id, blue.id] : day % 2 == 0 ? [red.id] : [blue.id]
            let note = try await store.create("Note", ["day": .text("2026-03-0\(day)"), "labels": .ids(labels),
                                                       "folderId": day == 6 ? .id(home.id) : .null])
            notes.append(note.id)
        }
        // notes[0] blue, [1] red, [2] both, [3] red, [4] blue, [5] both (in Home).
        try await store.update("Note", notes[1], ["labels": .ids([])])
        try await store.update("Note", notes[4], ["labels": .ids([red.id, blue.id])])
        try await store.delete("Note", notes[3])

        func asked(_ label: UUID) async throws -> [UUID] {
            try await store.entities("Note", where: "labels", equals: .id(label)).map(\.id)
        }
        // The oracle: every shown note, its shown labels read whole.
        func filtered(_ label: UUID) async throws -> [UUID] {
            try await store.entities("Note").filter { note in
                if case .ids(let members)? = note.values["labels"] { return members.contains(label) }
                return false
            }.map(\.id)
        }
        #expect(Set(try await asked(red.id)) == [notes[2], notes[4], notes[5]])
        for label in [red.id, blue.id] {
            #expect(try await asked(label) == filtered(label))
            #expect(try await store.entities(NoteRow.self, where: "labels", equals: .id(label)).map(\.id) == filtered(label))
        }
        // A member no note holds, an id no entity has, an id in capitals (a set's members are compared as stored).
        #expect(try await asked(UUID()).isEmpty)
        #expect(try await store.entities("Note", where: "labels", equals: .text(red.id.uuidString.uppercased())).isEmpty)
        // A deleted label is no note's member as shown; restored, it is back. A hidden note is in no answer.
        try await store.delete("Label", red.id)
        #expect(try await asked(red.id).isEmpty)
        try await store.restore("Label", red.id)
        #expect(try await asked(red.id) == filtered(red.id))
        try await store.delete("Folder", home.id)
        #expect(try await !asked(red.id).contains(notes[5]))
        try await store.restore("Note", notes[3])
        #expect(try await asked(red.id).contains(notes[3]))
        // A set is asked for one member: a range, or a value that is no id, is refused.
        await #expect(throws: ChronicleError.self) {
            try await store.entities("Note", where: "labels", from: .id(red.id), through: .id(blue.id))
        }
        await #expect(throws: ChronicleError.self) { try await store.entities("Note", where: "labels", equals: "red") }
        // The members' index agrees with the log's fold (verify --deep), and a rebuild's answers are the same.
        #expect(try ModelStatesVerifier.problems(path: folder.path + "/store/entities", model: NotebookModel.model,
                                                 log: store.log, deep: true).isEmpty)
        try await store.rebuild()
        for label in [red.id, blue.id] { #expect(try await asked(label) == filtered(label)) }
        await store.close()
    }

    @Test("an app's own record type reads the shown entities as they are stored; its initializer's error comes back as thrown")
    func recordsOfTheAppsOwnType() async throws {
        let folder = try TemporaryFolder("entity-records")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        let home = try await store.create("Folder", ["name": "Home"])
        let red = try await store.create("Label", ["name": "red"]), blue = try await store.create("Label", ["name": "blue"])
        let first = try await store.create("Note", ["day": "2026-03-02", "cost": "2.50", "folderId": .id(home.id), "labels": .ids(red.id, blue.id)])
        let second = try await store.create("Note", ["day": "2026-03-01"])
        _ = try await store.update("Note", second.id, ["pinned": true])
        try await store.delete("Label", blue.id)

        let expectedFirst = try #require(try await store.entity("Note", id: first.id))
        let rows = try await store.entities(NoteRow.self, where: "day", from: "2026-03-01", through: "2026-03-02")
        #expect(rows.map(\.id) == [second.id, first.id])
        #expect(rows.last?.labels == [red.id] && expectedFirst.members(of: "labels") == [red.id])
        #expect(rows.last?.cost == "2.50" && rows.last?.folder == home.id && rows.first?.pinned == true && rows.first?.cost == nil)
        #expect(try await store.entity(NoteRow.self, id: first.id) == rows.last)
        // Hidden with its folder, as the states show it.
        try await store.delete("Folder", home.id)
        #expect(try await store.entity(NoteRow.self, id: first.id) == nil)
        #expect(try await store.entities(NoteRow.self).map(\.id) == [second.id])

        // The app's own error, as it threw it; an entity or field the model lacks, Chronicle's.
        _ = try await store.create("Note", ["day": "2026-12-31"])
        await #expect(throws: NoteRow.Unreadable()) { try await store.entities(NoteRow.self) }
        await #expect(throws: ChronicleError.invalidInput("entity 'Note' of model 'notebook' has no field 'title'")) {
            try await store.entities(NoteRow.self, where: "title")
        }
    }

    @Test("a text that spells an id is stored as the id's 16 bytes and read back as written, in every spelling")
    func textsThatSpellIDsReadBackAsWritten() async throws {
        let folder = try TemporaryFolder("entity-id-texts")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        let home = try await store.create("Folder", ["name": "Home"])
        let id = UUID()
        // The spelling Chronicle writes (kept as 16 bytes), and three it does not (kept as text).
        let bodies = [id.uuidString.lowercased(), id.uuidString, "{\(id.uuidString.lowercased().dropLast(2))}", String(repeating: "-", count: 36)]
        var notes: [UUID: String] = [:]
        for body in bodies {
            notes[try await store.create("Note", ["day": "2026-03-02", "body": .text(body), "folderId": .id(home.id)]).id] = body
        }
        for (note, body) in notes {
            let state = try #require(try await store.entity("Note", id: note))
            #expect(state.values["body"] == .text(body))
            #expect(state.values["folderId"] == .text(home.id.uuidString.lowercased()))
        }
        let records = try await EveryFieldRecord.$name.withValue("Note") { try await store.entities(EveryFieldRecord.self) }
        #expect(records.count == bodies.count && records.allSatisfy(\.disagreements.isEmpty), "\(records.map(\.disagreements))")
        #expect(Dictionary(uniqueKeysWithValues: records.map { ($0.state.id, $0.state.values["body"]) }) == notes.mapValues { .text($0) })
        let rows = try await store.entities(NoteRow.self)
        #expect(rows.count == bodies.count && rows.allSatisfy { $0.folder == home.id })
    }

    @Test("a parent first stored already deleted hides the children stored before it, in the rows too")
    func aParentFirstStoredDeletedHidesEarlierChildren() async throws {
        let folder = try TemporaryFolder("entity-late-parent")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        let parent = UUID(), note = UUID()
        var upstream: UInt64 = 0
        func pulled(_ entity: String, _ id: UUID, _ version: UInt64, _ type: String, _ data: String) -> ForeignEvent {
            upstream += 1
            return ForeignEvent(id: UUID(), stream: entity + "-" + id.uuidString.lowercased(), version: version, type: type,
                                timestampMilliseconds: 1_800_000_000_000, origin: "another-device", data: Data(data.utf8),
                                upstreamPosition: upstream)
        }
        // Another device's note names a folder this device has not seen: a parent not found hides nothing.
        _ = try await store.importEvents([pulled("note", note, 1, "NoteCreated", #"{"day":"2026-03-01","folderId":"\#(parent.uuidString.lowercased())"}"#)])
        #expect(try await store.entity("Note", id: note) != nil)
        #expect(try await store.rows("NotesPerDay").map { $0.measures["notes"] } == [.integer(1)])
        // Then the folder arrives, made and deleted in one page: the note, stored before, is hidden with it.
        _ = try await store.importEvents([pulled("folder", parent, 1, "FolderCreated", #"{"name":"Gone"}"#),
                                          pulled("folder", parent, 2, "FolderDeleted", "{}")])
        #expect(try await store.entity("Note", id: note) == nil)
        #expect(try await store.rows("NotesPerDay").isEmpty)
        try await Self.expectStatesEqualTheFold(store, "a parent first stored deleted")
    }

    @Test("an entity whose id sorts after every stored one is found when deleted: restored in a later batch, in every entity")
    func theHighestIdsAreFoundInTheDeletedTable() async throws {
        let folder = try TemporaryFolder("entity-highest-ids")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        // Per entity, a live one with a low id and one with the highest id of its entity, which
        // is deleted: the deleted table then holds the later entities' keys after its own.
        func id(_ first: UInt8, _ last: UInt8) -> UUID { UUID(uuid: (first, 0, 0, 0, 0, 0, 0x70, 0, 0x80, 0, 0, 0, 0, 0, 0, last)) }
        func values(_ entity: String, _ name: String) -> [String: ChronicleModel.FieldValue] {
            entity == "Note" ? ["day": .text("2026-03-01")] : ["name": .text(name)]
        }
        for (number, entity) in ["Folder", "Note", "Label"].enumerated() {
            let low = UInt8(number + 1), high = UInt8(0xF0 + number)
            _ = try await store.create(entity, values(entity, "low"), id: id(low, 1))
            _ = try await store.create(entity, values(entity, "high"), id: id(high, 2))
            try await store.delete(entity, id(high, 2))
            #expect(try await store.entities(entity).map(\.id) == [id(low, 1)])
        }
        // Each restoration folds in a batch of its own, which must find the entity where it was stored.
        for (number, entity) in ["Folder", "Note", "Label"].enumerated() {
            let high = id(UInt8(0xF0 + number), 2)
            #expect(try await store.restore(entity, high) != nil, "\(entity)")
            #expect(try await store.entities(entity).map(\.id) == [id(UInt8(number + 1), 1), high], "\(entity)")
        }
        try await Self.expectStatesEqualTheFold(store, "the highest ids, deleted and restored")
    }

    @Test("null clears an optional field: written as null, folded as absent; a required field is refused; a cleared unique value is free")
    func nullClearsOptionalFields() async throws {
        let folder = try TemporaryFolder("entity-null")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        let home = try await store.create("Folder", ["name": "Home"])
        let red = try await store.create("Label", ["name": "red"])
        let note = try await store.create("Note", ["day": "2026-03-01", "cost": "2.50", "folderId": .id(home.id), "labels": .ids([red.id])])
        let cleared = try await store.update("Note", note.id, ["cost": .null, "folderId": .null, "labels": .null])
        #expect(cleared.values["cost"] == nil && cleared.values["folderId"] == nil && cleared.values["labels"] == .ids([]))
        let written = try store.log.read(after: 0, limit: .max).filter { $0.type == "NoteUpdated" }.last
        #expect(written.map { String(decoding: $0.data, as: UTF8.self) } == #"{"cost":null,"folderId":null}"#)
        #expect(try await store.rows("NotesPerDay").first?.measures["spent"] == .text("0"))
        // No longer in the folder: the folder's deletion leaves it shown.
        try await store.delete("Folder", home.id)
        #expect(try await store.entity("Note", id: note.id) != nil)
        // Clearing what is absent is written and changes nothing (as the todo app clears a memo it
        // does not have); a required field cannot be cleared.
        let head = try store.log.head()
        #expect(try await store.update("Note", note.id, ["cost": .null]) == (try await store.entity("Note", id: note.id)))
        #expect(try store.log.head() == head + 1)
        await #expect(throws: ChronicleError.refused(.init("day is required: it cannot be cleared"))) {
            try await store.update("Note", note.id, ["day": .null])
        }
        // Undo gives a cleared value back, and clears a value given to a field that had none.
        _ = try await store.update("Note", note.id, ["cost": "7"])
        _ = try await store.update("Note", note.id, ["cost": .null])
        try await store.undo()
        #expect(try await store.entity("Note", id: note.id)?.values["cost"] == .text("7"))
        try await store.undo()
        #expect(try await store.entity("Note", id: note.id)?.values["cost"] == nil)
        try await Self.expectStatesEqualTheFold(store, "cleared")
        await store.close()

        // A unique value cleared is released: another entity may take it.
        let shelf = try ChronicleModel("shelf", version: 1) { model in
            model.entity("Book") { book in
                book.text("title", .notBlank)
                book.text("isbn", optional: true, unique: .exact)
            }
        }
        let books = try Self.open(folder, "books", model: shelf)
        let dune = try await books.create("Book", ["title": "Dune", "isbn": "978-0441013593"])
        await #expect(throws: ChronicleError.self) { try await books.create("Book", ["title": "Dune again", "isbn": "978-0441013593"]) }
        _ = try await books.update("Book", dune.id, ["isbn": .null])
        let again = try await books.create("Book", ["title": "Dune again", "isbn": "978-0441013593"])
        #expect(try await books.entities("Book").map { $0.text("isbn") }.sorted { ($0 ?? "") < ($1 ?? "") } == [nil, "978-0441013593"])
        #expect(again.text("isbn") == "978-0441013593")
        await books.close()
    }

    @Test("events a newer version wrote are kept and counted as unread, never shown, never a crash")
    func eventsOfANewerVersionAreKeptAndCounted() async throws {
        let folder = try TemporaryFolder("entity-unread")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        let note = try await store.create("Note", ["day": "2026-03-01", "body": "milk"])
        #expect(try await store.unreadEvents() == .init(count: 0, first: nil))
        let stream = "note-" + note.id.uuidString.lowercased()
        // Pulled from a device already on version 2: an event type version 1 does not declare,
        // and an update of a newer schema version.
        let pulled = [
            ForeignEvent(id: UUID(), stream: stream, version: 2, type: "NoteArchived", timestampMilliseconds: 1_900_000_000_000,
                         origin: "new-phone", data: Data("{}".utf8), upstreamPosition: 1),
            ForeignEvent(id: UUID(), stream: stream, version: 3, type: "NoteUpdated", schemaVersion: 2, timestampMilliseconds: 1_900_000_000_001,
                         origin: "new-phone", data: Data(#"{"body":"oat milk"}"#.utf8), upstreamPosition: 2),
        ]
        let head = try store.log.head()
        _ = try await store.importEvents(pulled)
        #expect(try store.log.head() == head + 2, "both events are kept")
        let unread = try await store.unreadEvents()
        #expect(unread.count == 2)
        #expect(unread.first == "event \(head + 1): unknown event type 'NoteArchived'", "\(unread)")
        #expect(try await store.entity("Note", id: note.id)?.text("body") == "milk")
        // Folded again from the log, the count is the same.
        let rebuilt = try ModelStates(path: folder.path + "/rebuilt", model: NotebookModel.model, log: store.log, noSync: true)
        try rebuilt.rebuild()
        #expect(try rebuilt.unread().count == 2)
        await store.close()
    }

    @Test("a step that renames a folder, then deletes it, leaves the name free")
    func aStepThatClaimsAndReleasesLeavesTheNameFree() async throws {
        let folder = try TemporaryFolder("entity-claim-release")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        let work = try await store.create("Folder", ["name": "Work"])
        try await store.perform { step in
            try step.update("Folder", work.id, ["name": "Books"])
            try step.delete("Folder", work.id)
        }
        #expect(try store.log.holder(of: "folder-name:books") == nil)
        let books = try await store.create("Folder", ["name": "books"])
        #expect(try await store.entities("Folder").map(\.id) == [books.id])
        await store.close()
    }

    @Test("a step: each command sees the ones before it, all are appended or none")
    func steps() async throws {
        let folder = try TemporaryFolder("steps")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        // A folder and a note in it, one batch: the note's folder is live within the step.
        let note = try await store.perform { step in
            let home = try step.create("Folder", ["name": "Home"])
            return try step.create("Note", ["day": "2026-03-01", "folderId": .id(home)])
        }
        let home = try #require(try await store.entities("Folder").first)
        #expect(try await store.entity("Note", id: note)?.reference("folderId") == home.id)
        #expect(try store.log.head() == 2)
        // A rename frees a name that the step's next command takes.
        let work = try await store.perform { step in
            try step.update("Folder", home.id, ["name": "Office"])
            return try step.create("Folder", ["name": "home"])
        }
        #expect(try await store.entities("Folder").compactMap { $0.text("name") }.sorted() == ["Office", "home"])
        // A refused command refuses the whole step: nothing is appended.
        let head = try store.log.head()
        await #expect(throws: ChronicleError.refused(.init("a folder with name \"office\" already exists"))) {
            try await store.perform { step in
                try step.delete("Folder", work)
                try step.create("Folder", ["name": "office"])
            }
        }
        #expect(try store.log.head() == head)
        // A deletion the step decided is seen by its next command.
        try await store.perform { step in
            try step.delete("Folder", work)
            #expect(try step.state(of: "Folder", id: work)?.isDeleted == true)
            try step.restore("Folder", work)
        }
        #expect(try await store.entity("Folder", id: work)?.text("name") == "home")
        await store.close()
    }

    @Test("undo and redo on a declared model: steps go back and forth, an overtaken one is refused")
    func undoAndRedo() async throws {
        let folder = try TemporaryFolder("undo-entities")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        let home = try await store.create("Folder", ["name": "Home"])
        let (red, note) = try await store.perform { step in
            let red = try step.create("Label", ["name": "red"])
            return (red, try step.create("Note", ["day": "2026-03-01", "folderId": .id(home.id), "labels": .ids(red)]))
        }
        try await store.update("Note", note, ["pinned": true, "body": "milk"])
        try await store.delete("Folder", home.id)
        #expect(try await store.entities("Note").isEmpty)

        try await store.undo()   // the folder's deletion
        #expect(try await store.entity("Folder", id: home.id) != nil)
        #expect(try await store.entity("Note", id: note)?.boolean("pinned") == true)
        try await store.undo()   // the update: pinned and body go back
        let reverted = try #require(try await store.entity("Note", id: note))
        #expect(reverted.boolean("pinned") == false && reverted.text("body") == nil, "\(reverted)")
        try await store.redo()
        #expect(try await store.entity("Note", id: note)?.text("body") == "milk")
        try await store.undo(steps: 2)   // the update again, and the step that made the label and the note
        #expect(try await store.entities("Note").isEmpty)
        #expect(try await store.entities("Label").isEmpty)
        #expect(try await store.entities("Folder").map(\.id) == [home.id])
        try await store.redo()
        #expect(try await store.entity("Note", id: note)?.values["labels"] == .ids([red]))

        // Another device changes the note: the step that made it can no longer be undone.
        let stream = "note-" + note.uuidString.lowercased()
        let page = try serverPage(givingBack: store.log, then: [ForeignEvent(id: UUID(), stream: stream, version: 99, type: "NoteUpdated", timestampMilliseconds: 1_800_000_000_000,
                                 origin: "another-device", data: Data(#"{"day":"2026-03-09"}"#.utf8))])
        _ = try await store.importEvents(page)
        let head = try store.log.head()
        await #expect(throws: ChronicleError.rejected(.overtaken(stream: stream, redo: false))) { try await store.undo() }
        #expect(try store.log.head() == head)
        try await Self.expectStatesEqualTheFold(store, "after undo and redo")
        await store.close()
    }

    @Test("a unique value written apart on two devices: the first in the server's order keeps it, the next shows a suffix, on both")
    func collidingValuesAreToldApart() async throws {
        let folder = try TemporaryFolder("entity-collisions")
        defer { folder.remove() }
        let devices = [try Self.open(folder, "a", model: NotebookModel.model), try Self.open(folder, "b", model: NotebookModel.model)]
        var server = ServerOrder()
        let first = try await devices[0].create("Folder", ["name": "Work"])
        let second = try await devices[1].create("Folder", ["name": "work"])
        let note = try await devices[1].create("Note", ["day": "2026-03-01", "folderId": .id(second.id)])
        for index in [0, 1, 0] { try await server.sync(devices[index], index: index) }
        for device in devices {
            #expect(try await device.entity("Folder", id: first.id)?.text("name") == "Work")
            #expect(try await device.entity("Folder", id: second.id)?.text("name") == "work (2)")
            let names = try await device.entities("Folder").map { ($0.id, $0.text("name")) }
            #expect(names.map(\.0) == [first.id, second.id].sorted { $0.uuidString.lowercased() < $1.uuidString.lowercased() })
            #expect(Set(names.compactMap(\.1)) == ["Work", "work (2)"])
            #expect(try await device.entities("Note").map(\.id) == [note.id])
            try await Self.expectStatesEqualTheFold(device, "collided")
            // Listed as a conflict on both devices alike, written out here (not by the code's own wording).
            let renamed = try await device.conflicts().filter { $0.kind == "folder-renamed" }
            #expect(renamed == [MergeConflict(stream: "folder-" + second.id.uuidString.lowercased(), kind: "folder-renamed",
                                              detail: "shown as \"work (2)\": a folder named earlier has the same name up to case")])
        }
        // Once the first is deleted, the second shows its own value, and no conflict lists it.
        try await devices[0].delete("Folder", first.id)
        for index in [0, 1] { try await server.sync(devices[index], index: index) }
        for device in devices {
            #expect(try await device.entities("Folder").map { $0.text("name") } == ["work"])
            #expect(try await device.conflicts().filter { $0.kind == "folder-renamed" }.isEmpty)
        }
        for device in devices { await device.close() }
    }

    @Test("a step that deletes one of two folders sharing a name after a merge, then takes the name, is refused: the other holds it")
    func aStepCannotTakeAValueAnotherStillHolds() async throws {
        let folder = try TemporaryFolder("entity-shared-value")
        defer { folder.remove() }
        let devices = [try Self.open(folder, "a", model: NotebookModel.model), try Self.open(folder, "b", model: NotebookModel.model)]
        var server = ServerOrder()
        let first = try await devices[0].create("Folder", ["name": "Home"])
        let second = try await devices[1].create("Folder", ["name": "home"])
        for index in [0, 1, 0] { try await server.sync(devices[index], index: index) }
        let store = devices[0]
        #expect(try await store.entity("Folder", id: second.id)?.text("name") == "home (2)")
        // Whichever of the two the store names as the value's holder, deleting either leaves
        // the other holding it: refused, not a conflict tried again until it gives up.
        for deleted in [first.id, second.id] {
            await #expect(throws: ChronicleError.refused(.init("a folder with name \"HOME\" already exists"))) {
                try await store.perform { step in
                    try step.delete("Folder", deleted)
                    try step.create("Folder", ["name": "HOME"])
                }
            }
        }
        // Both deleted in the step, the name is free.
        let head = try store.log.head()
        let third = try await store.perform { step in
            try step.delete("Folder", first.id)
            try step.delete("Folder", second.id)
            return try step.create("Folder", ["name": "HOME"])
        }
        #expect(try store.log.head() == head + 3)
        #expect(try await store.entities("Folder").map { $0.text("name") } == ["HOME"])
        #expect(try await store.entities("Folder").map(\.id) == [third])
        try await Self.expectStatesEqualTheFold(store, "after the step")
        for device in devices { await device.close() }
    }

    @Test("merges list what they overrule of this device's writes: an overwritten field, writes gone with a deletion")
    func conflictsAreListed() async throws {
        let folder = try TemporaryFolder("entity-conflicts")
        defer { folder.remove() }
        let store = try Self.open(folder, "store", model: NotebookModel.model)
        let note = try await store.create("Note", ["day": "2026-03-01"])
        try await store.update("Note", note.id, ["body": "mine"])
        let stream = "note-" + note.id.uuidString.lowercased()
        // Pushed and given back (positions 1 and 2 on the server); then another device's write
        // of the body, made earlier by its clock, reaches the server after this one's.
        let page = try serverPage(givingBack: store.log, then: [ForeignEvent(id: UUID(), stream: stream, version: 3, type: "NoteUpdated", timestampMilliseconds: 1_700_000_000_000,
                                 origin: "tablet", data: Data(#"{"body":"theirs"}"#.utf8))])
        _ = try await store.importEvents(page)
        #expect(try await store.entity("Note", id: note.id)?.text("body") == "theirs")
        var conflicts = try await store.conflicts()
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.stream == stream && conflicts.first?.kind == "overwritten")
        #expect(conflicts.first?.detail.hasPrefix("body written here at ") == true
                && conflicts.first?.detail.hasSuffix(" lost to an earlier write from device tablet") == true, "\(conflicts)")

        // A write here not pushed yet, then the other device's deletion, made after this device's
        // pushed writes by its clock: the unpushed write goes with it (the pushed ones it saw).
        try await store.update("Note", note.id, ["cost": "3.50"])
        _ = try await store.importEvents([ForeignEvent(id: UUID(), stream: stream, version: 4, type: "NoteDeleted",
                                                       timestampMilliseconds: 4_000_000_000_000, origin: "tablet", data: Data("{}".utf8),
                                                       upstreamPosition: 4)])
        #expect(try await store.entity("Note", id: note.id) == nil)
        conflicts = try await store.conflicts()
        #expect(conflicts.map(\.kind) == ["overwritten", "deleted"])
        #expect(conflicts.last?.detail == "1 change made here went with its deletion on device tablet")
        try await Self.expectStatesEqualTheFold(store, "after the conflicts")
        await store.close()
    }

    @Test("a second version of a model, a field renamed and one added with a default, opens the first's store")
    func secondVersionOpensTheFirstsStore() async throws {
        let folder = try TemporaryFolder("model-v2")
        defer { folder.remove() }
        let first = try ChronicleModel("shelf", version: 1) { model in
            model.entity("Book") { book in
                book.text("heading", .notBlank, unique: .caseFolded)
                book.integer("pages", optional: true)
            }
        }
        let second = try ChronicleModel("shelf", version: 2) { model in
            model.entity("Book") { book in
                book.text("title", .notBlank, unique: .caseFolded)
                book.rename("heading", to: "title")
                book.integer("pages", optional: true)
                book.boolean("read", default: false)
                book.index("title")
            }
        }
        var store = try Self.open(folder, "store", model: first)
        let dune = try await store.create("Book", ["heading": "Dune", "pages": 412])
        await store.close()

        store = try Self.open(folder, "store", model: second)
        let read = try #require(try await store.entity("Book", id: dune.id))
        #expect(read.values == ["title": "Dune", "pages": 412, "read": false])
        // The unique value's claim was made under the old name: it still holds.
        await #expect(throws: ChronicleError.refused(.init("a book with title \"DUNE\" already exists"))) {
            try await store.create("Book", ["title": "DUNE"])
        }
        try await store.update("Book", dune.id, ["title": "Dune Messiah", "read": true])
        _ = try await store.create("Book", ["title": "Dune"])
        #expect(try await store.entities("Book", where: "title", equals: "Dune Messiah").map(\.id) == [dune.id])
        // Pushed; then a device not upgraded yet writes the old name: read as the new one.
        let stream = "book-" + dune.id.uuidString.lowercased()
        let page = try serverPage(givingBack: store.log, then: [ForeignEvent(id: UUID(), stream: stream, version: 9, type: "BookUpdated",
                                 timestampMilliseconds: 1_900_000_000_000, origin: "old-phone", data: Data(#"{"heading":"Children of Dune"}"#.utf8))])
        _ = try await store.importEvents(page)
        #expect(try await store.entity("Book", id: dune.id)?.text("title") == "Children of Dune")
        try await Self.expectStatesEqualTheFold(store, "version 2")
        await store.close()

        // Renamed to a field of another type: refused at open, the store untouched.
        let wrong = try ChronicleModel("shelf", version: 3) { model in
            model.entity("Book") { book in
                book.integer("title", optional: true)
                book.rename("heading", to: "title")
            }
        }
        #expect(throws: ChronicleError.self) { try Self.open(folder, "store", model: wrong) }
    }

    @Test("random commands on two devices syncing through a server's order: stored states equal the log's fold",
          arguments: DeclaredTestModels.names)
    func randomCommandsAndPulls(modelName: String) async throws {
        let model = DeclaredTestModels.model(named: modelName)
        let name = "StoredEntitiesTests.randomCommandsAndPulls.\(modelName)"
        print("\(name): seed 0x\(String(TestSeed.seed(for: name), radix: 16)) (replay the run: \(TestSeed.replay))")
        var random = TestSeed.generator(for: name)
        let folder = try TemporaryFolder("stored-entities")
        defer { folder.remove() }
        var devices = [try Self.open(folder, "a", model: model), try Self.open(folder, "b", model: model)]
        var server = ServerOrder()
        let commands = RandomModelCommand(model: model)
        var known: [String: [UUID]] = [:]
        var accepted = 0, refused = 0, syncs = 0
        for step in 1...600 {
            switch try await Self.randomStep(devices, &server, commands, &known, &random) {
            case .synced: syncs += 1
            case .accepted: accepted += 1
            case .refused: refused += 1
            }
            if step.isMultiple(of: 60) {
                for index in devices.indices { try await Self.expectStatesEqualTheFold(devices[index], "step \(step), device \(index)") }
            }
            if step == 300 {
                // Reopened halfway: the states kept on disk go on from their checkpoint.
                await devices[0].close()
                devices[0] = try Self.open(folder, "a", model: model)
            }
        }
        // Synced until quiet, both show the same.
        for _ in 0..<2 { for index in devices.indices { try await server.sync(devices[index], index: index) } }
        for entity in model.entities.map(\.name) {
            #expect(try await devices[0].entities(entity) == (try await devices[1].entities(entity)), "\(entity) differs between devices")
        }
        for index in devices.indices { try await Self.expectStatesEqualTheFold(devices[index], "synced, device \(index)") }
        var collisions = 0
        for entity in model.entities.map(\.name) {
            for state in try await devices[0].entities(entity) {
                collisions += state.values.values.filter { if case .text(let text) = $0 { text.hasSuffix(" (2)") } else { false } }.count
            }
        }
        print("\(name): \(accepted) accepted, \(refused) refused, \(syncs) syncs, \(server.events.count) events on the server, "
              + "\(collisions) unique values shown with a suffix")
        #expect(accepted > 100 && refused > 30)
        for device in devices { await device.close() }
        // Closed, each device's stored entities, their indexes and rows match the fold (what
        // `chronicle verify --deep` checks), raw states and deleted ones included.
        for name in ["a", "b"] {
            let log = try EventLog(path: folder.path + "/\(name)/log")
            #expect(try ModelStatesVerifier.problems(path: folder.path + "/\(name)/entities", model: model, log: log, deep: true) == [],
                    "device \(name)")
            log.close()
        }
    }

    /// What ``randomStep(_:_:_:_:_:)`` did.
    enum RandomStep { case synced, accepted, refused }

    /// One random step on `devices`: now and then one syncs through `server`; else one performs
    /// a command read off the model's declaration (now and then a step of two or three,
    /// appended together or not at all), and the ids it creates join `known`.
    static func randomStep(_ devices: [ChronicleStore], _ server: inout ServerOrder, _ commands: RandomModelCommand,
                           _ known: inout [String: [UUID]], _ random: inout SeededGenerator) async throws -> RandomStep {
        let device = Int.random(in: 0..<devices.count, using: &random)
        if Int.random(in: 0..<6, using: &random) == 0 {
            try await server.sync(devices[device], index: device)
            return .synced
        }
        let batch = (0..<(Int.random(in: 0..<5, using: &random) == 0 ? Int.random(in: 2...3, using: &random) : 1))
            .map { _ in commands.random(&random, known: known) }
        do {
            try await devices[device].perform { step in
                for command in batch { try step.perform(command) }
            }
        } catch ChronicleError.refused {
            return .refused
        }
        for command in batch { if case .create = command.action { known[command.entity, default: []].append(command.id) } }
        return .accepted
    }

    /// Every entity as the store shows it equals the in-memory fold of its whole log, and so do
    /// queries by each field's value and every aggregate's rows.
    static func expectStatesEqualTheFold(_ store: ChronicleStore, _ context: String,
                                         sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let replayed = try ModelReplay.snapshot(log: store.log, model: store.model).snapshot
        for aggregate in store.model.aggregates {
            let rows = replayed.rows(of: aggregate.name) ?? []
            #expect(try await store.rows(aggregate.name) == rows, "\(context): \(aggregate.name)", sourceLocation: sourceLocation)
            if rows.count >= 3 {
                #expect(try await store.rows(aggregate.name, from: rows[1].key, through: rows[rows.count - 2].key) == Array(rows[1...(rows.count - 2)]),
                        "\(context): \(aggregate.name) in a range", sourceLocation: sourceLocation)
            }
        }
        for entity in store.model.entities {
            let shown = replayed.shown(entity.name)
            for field in entity.fields {
                if case .references = field.type { continue }
                // The oracle: the shown entities with the field's value as folded (a collided unique
                // value is shown with a suffix; queries go by the value itself), by value, then id.
                func raw(_ state: ChronicleModel.EntityState) -> ChronicleModel.FieldValue? {
                    replayed.state(of: entity.name, id: state.id)?.values[field.name]
                }
                let holding = shown.filter { raw($0) != nil }.sorted { a, b in
                    let x = raw(a)!, y = raw(b)!
                    return x.sortsBefore(y) || (!y.sortsBefore(x) && a.id.uuidString.lowercased() < b.id.uuidString.lowercased())
                }
                #expect(try await store.entities(entity.name, where: field.name) == holding,
                        "\(context): \(entity.name) by \(field.name)", sourceLocation: sourceLocation)
                let records = try await EveryFieldRecord.$name.withValue(entity.name) {
                    try await store.entities(EveryFieldRecord.self, where: field.name)
                }
                #expect(records.map(\.state) == holding && records.allSatisfy(\.disagreements.isEmpty),
                        "\(context): \(entity.name) records by \(field.name)", sourceLocation: sourceLocation)
                if let middle = holding.dropFirst(holding.count / 2).first.flatMap(raw) {
                    let equal = holding.filter { raw($0) == middle }
                    #expect(try await store.entities(entity.name, where: field.name, equals: middle) == equal,
                            "\(context): \(entity.name) by \(field.name) = \(middle)", sourceLocation: sourceLocation)
                    let records = try await EveryFieldRecord.$name.withValue(entity.name) {
                        try await store.entities(EveryFieldRecord.self, where: field.name, equals: middle)
                    }
                    #expect(records.map(\.state) == equal, "\(context): \(entity.name) records by \(field.name) = \(middle)",
                            sourceLocation: sourceLocation)
                    let upTo = holding.filter { !middle.sortsBefore(raw($0)!) }
                    #expect(try await store.entities(entity.name, where: field.name, through: middle) == upTo,
                            "\(context): \(entity.name) by \(field.name) up to \(middle)", sourceLocation: sourceLocation)
                }
            }
        }
        for entity in store.model.entities.map(\.name) {
            let stored = try await store.entities(entity)
            #expect(stored == replayed.shown(entity), "\(context): \(entity) differs from the fold", sourceLocation: sourceLocation)
            let records = try await EveryFieldRecord.$name.withValue(entity) { try await store.entities(EveryFieldRecord.self) }
            #expect(records.map(\.state) == stored && records.allSatisfy(\.disagreements.isEmpty),
                    "\(context): \(entity) records differ from its states", sourceLocation: sourceLocation)
            for state in stored {
                let record = try await EveryFieldRecord.$name.withValue(entity) { try await store.entity(EveryFieldRecord.self, id: state.id) }
                #expect(record?.state == state, "\(context): \(entity) record \(state.id) differs from its state", sourceLocation: sourceLocation)
            }
            for state in replayed.states(of: entity) {
                #expect(try await store.entity(entity, id: state.id) == replayed.shown(entity, id: state.id),
                        "\(context): \(entity) \(state.id) differs from the fold", sourceLocation: sourceLocation)
            }
        }
    }
}

/// A sync server's order, kept in the test: a push appends a device's events the server has
/// not seen at the next positions; a pull stores every event the device has not pulled, with
/// its server position, through the store's `importEvents` (which stores a page with the keys the sync engine's pull stores).
struct ServerOrder {
    var events: [RecordedEvent] = []
    private var seen: Set<UUID> = []
    private var pulled: [Int: Int] = [:]

    mutating func sync(_ store: ChronicleStore, index: Int) async throws {
        // Push: the device's events the server has not seen, in the device's order.
        for event in try store.log.read(after: 0, limit: .max) where !seen.contains(event.id) {
            seen.insert(event.id)
            events.append(event)
        }
        // Pull: everything after the device's cursor, its own events coming back included.
        let from = pulled[index] ?? 0
        guard from < events.count else { return }
        let page = events[from...].enumerated().map { offset, event in
            event.foreign(upstreamPosition: UInt64(from + offset + 1))
        }
        _ = try await store.importEvents(Array(page))
        pulled[index] = events.count
    }
}

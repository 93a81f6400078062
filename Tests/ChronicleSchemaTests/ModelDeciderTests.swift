import ChronicleSchema
import ChronicleTestSupport
import ChronicleTodoModel
import Foundation
import Testing

/// Commands decided by a model's rules: the events, the versions and the keys a decision
/// appends with, and the one line that refuses a command.
@Suite struct ModelDeciderTests {
    /// A store in memory: decisions are applied to a snapshot, as a log and its fold would.
    struct Memory: ChronicleModel.StateReading {
        var snapshot: ChronicleModel.Snapshot
        var versions: [String: UInt64] = [:]
        var position: UInt64 = 0
        var claims: [String: String] = [:]

        init(_ model: ChronicleModel) { snapshot = ChronicleModel.Snapshot(model) }

        func state(of entity: String, id: UUID) -> ChronicleModel.EntityState? { snapshot.state(of: entity, id: id) }
        func isShown(_ entity: String, id: UUID) -> Bool { snapshot.shown(entity, id: id) != nil }
        func holder(of entity: String, field: String, key: String) -> UUID? {
            claims["\(snapshot.model.entity(named: entity)!.stream)-\(field):\(key)"].flatMap { UUID(uuidString: String($0.suffix(36))) }
        }
        func holders(of entity: String, field: String, key: String) -> [UUID] {
            holder(of: entity, field: field, key: key).map { [$0] } ?? []
        }
        func children(of entity: String, field: String, parent: UUID) -> [ChronicleModel.EntityState] {
            snapshot.states(of: entity).filter { $0.reference(field) == parent }
        }
        func version(of stream: String) -> UInt64 { versions[stream] ?? 0 }

        /// Decides `action` and applies what it appends; returns the decision.
        @discardableResult
        mutating func run(_ entity: String, _ id: UUID, _ action: ChronicleModel.Command.Action) throws -> ChronicleModel.Decision {
            let decision = try ChronicleModel.Decider(snapshot.model).decide(ChronicleModel.Command(entity: entity, id: id, action: action), reading: self)
            for (stream, version) in decision.expectedVersions { #expect(versions[stream] ?? 0 == version) }
            let reader = ChronicleModel.EventReader(snapshot.model)
            for event in decision.events {
                position += 1
                versions[event.stream, default: 0] += 1
                snapshot.apply(try reader.read(type: event.type, stream: event.stream, data: event.data, schemaVersion: event.schemaVersion))
            }
            for condition in decision.conditions {
                switch condition {
                case .claim(let key, let owner): claims[key] = owner
                case .release(let key, _): claims[key] = nil
                case .touch, .unchanged: break
                }
            }
            return decision
        }

        func problem(_ entity: String, _ id: UUID, _ action: ChronicleModel.Command.Action) -> String {
            var copy = self
            do {
                try copy.run(entity, id, action)
                return "decided"
            } catch {
                return "\(error)"
            }
        }
    }

    static func id(_ n: Int) -> UUID { NotebookModel.id(n) }
    static func text(_ n: Int) -> String { NotebookModel.text(n) }

    @Test func aCreationWritesItsCheckedValuesAndHoldsItsKeys() throws {
        var store = Memory(NotebookModel.model)
        let folder = try store.run("Folder", Self.id(1), .create(["name": .text("Home")]))
        #expect(folder.events.map { String(decoding: $0.data, as: UTF8.self) } == [#"{"name":"Home"}"#])
        #expect(folder.conditions == [.claim("folder-name:home", by: "folder-\(Self.text(1))")])
        #expect(folder.expectedVersions == ["folder-\(Self.text(1))": 0])
        try store.run("Label", Self.id(2), .create(["name": .text("red")]))
        let note = try store.run("Note", Self.id(3), .create([
            "day": .text("2026-03-01"), "body": .text(""), "cost": .text("2.50"), "pinned": .boolean(true),
            "folderId": .text(Self.text(1).uppercased()), "labels": .ids([Self.id(2)]),
        ]))
        #expect(note.events.map(\.type) == ["NoteCreated", "NotePinned", "NoteLabeled"])
        #expect(String(decoding: note.events[0].data, as: UTF8.self)
                == #"{"cost":"2.50","day":"2026-03-01","folderId":"\#(Self.text(1))"}"#)
        #expect(note.conditions == [.touch("folder-\(Self.text(1))/notes")])
        #expect(store.snapshot.shown("Note").first.map(NotebookModel.model.json(of:))
                == #"{"id":"\#(Self.text(3))","body":null,"day":"2026-03-01","cost":"2.50","pinned":true,"folderId":"\#(Self.text(1))","labels":["\#(Self.text(2))"]}"#)
    }

    @Test func rulesRefuseWithOneLineNamingTheField() throws {
        var store = Memory(NotebookModel.model)
        try store.run("Folder", Self.id(1), .create(["name": .text("Home")]))
        try store.run("Folder", Self.id(2), .create(["name": .text("Work")]))
        #expect(store.problem("Folder", Self.id(3), .create(["name": .text(" HOME ")])) == #"a folder with name " HOME " already exists"#)
        #expect(store.problem("Folder", Self.id(2), .update(["name": .text("home")])) == #"a folder with name "home" already exists"#)
        #expect(store.problem("Folder", Self.id(3), .create(["name": .text("  ")])) == "name must not be blank")
        #expect(store.problem("Folder", Self.id(3), .create(["name": .text(String(repeating: "x", count: 81))])) == "name must be at most 80 characters (got 81)")
        #expect(store.problem("Folder", Self.id(1), .create(["name": .text("Again")])) == "folder \(Self.text(1)) already exists")
        #expect(store.problem("Note", Self.id(4), .create(["body": .text("x")])) == "day is required")
        #expect(store.problem("Note", Self.id(4), .create(["day": .text("2026-02-30")])) == #"day must be a real calendar day as YYYY-MM-DD (got "2026-02-30")"#)
        #expect(store.problem("Note", Self.id(4), .create(["day": .text("2026-02-03"), "cost": .text("1,5")])) == #"cost must be a decimal number like 12.50 (got "1,5")"#)
        #expect(store.problem("Note", Self.id(4), .create(["day": .text("2026-02-03"), "size": .integer(1)])).hasPrefix("Note has no field 'size'"))
        #expect(store.problem("Note", Self.id(4), .create(["day": .text("2026-02-03"), "folderId": .text(Self.text(9))])) == "unknown folder \(Self.text(9))")
        #expect(store.problem("Note", Self.id(4), .create(["day": .integer(3)])) == "day must be a day")
        #expect(store.problem("Note", Self.id(4), .update(["body": .text("x")])) == "unknown note \(Self.text(4))")
        #expect(store.problem("Nothing", Self.id(4), .delete) == "model 'notebook' has no entity 'Nothing'")
        try store.run("Note", Self.id(4), .create(["day": .text("2026-02-03")]))
        #expect(store.problem("Note", Self.id(4), .update([:])) == "nothing to update: give at least one field to change")
        #expect(store.problem("Note", Self.id(4), .update(["pinned": .boolean(false)])) == "note \(Self.text(4)) pinned is already false")
        #expect(store.problem("Note", Self.id(4), .remove(field: "labels", member: Self.id(5))) == "unknown label \(Self.text(5))")
        try store.run("Label", Self.id(5), .create(["name": .text("blue")]))
        #expect(store.problem("Note", Self.id(4), .remove(field: "labels", member: Self.id(5))) == "note \(Self.text(4)) does not have labels \(Self.text(5))")
        #expect(store.problem("Note", Self.id(4), .restore) == "note \(Self.text(4)) is not deleted")
        try store.run("Folder", Self.id(1), .delete)
        #expect(store.problem("Note", Self.id(5), .create(["day": .text("2026-02-03"), "folderId": .text(Self.text(1))])) == "folder \(Self.text(1)) is deleted")
        // Its name is free again: a new folder takes it, and the deleted one cannot come back.
        try store.run("Folder", Self.id(6), .create(["name": .text("home")]))
        #expect(store.problem("Folder", Self.id(1), .restore) == #"a folder with name "Home" already exists"#)
    }

    @Test func eachRefusalSaysItsReasonAsAValue() throws {
        typealias Reason = ChronicleModel.CommandProblem.Reason
        var store = Memory(NotebookModel.model)
        func reason(_ entity: String, _ id: UUID, _ action: ChronicleModel.Command.Action) -> Reason? {
            var copy = store
            do {
                try copy.run(entity, id, action)
                return nil
            } catch let problem as ChronicleModel.CommandProblem {
                return problem.reason
            } catch {
                Issue.record("not a command problem: \(error)")
                return nil
            }
        }
        try store.run("Folder", Self.id(1), .create(["name": .text("Home")]))
        #expect(reason("Folder", Self.id(3), .create(["name": .text(" HOME ")])) == .taken(field: "name", value: " HOME "))
        #expect(reason("Folder", Self.id(3), .create(["name": .text("  ")])) == .invalidValue(field: "name"))
        #expect(reason("Folder", Self.id(1), .create(["name": .text("Again")])) == .alreadyExists(entity: "Folder", id: Self.id(1)))
        #expect(reason("Note", Self.id(4), .create(["body": .text("x")])) == .required(field: "day"))
        #expect(reason("Note", Self.id(4), .create(["day": .integer(3)])) == .invalidValue(field: "day"))
        #expect(reason("Note", Self.id(4), .create(["day": .text("2026-02-03"), "folderId": .text(Self.text(9))]))
                == .unknown(entity: "Folder", id: Self.id(9)))
        #expect(reason("Note", Self.id(4), .update(["body": .text("x")])) == .unknown(entity: "Note", id: Self.id(4)))
        #expect(reason("Nothing", Self.id(4), .delete) == .other)
        try store.run("Note", Self.id(4), .create(["day": .text("2026-02-03")]))
        #expect(reason("Note", Self.id(4), .update([:])) == .nothingToUpdate)
        #expect(reason("Note", Self.id(4), .update(["day": .null])) == .required(field: "day"))
        #expect(reason("Note", Self.id(4), .update(["pinned": .boolean(false)])) == .alreadySet(field: "pinned", value: false))
        try store.run("Label", Self.id(5), .create(["name": .text("blue")]))
        #expect(reason("Note", Self.id(4), .remove(field: "labels", member: Self.id(5))) == .notMember(field: "labels", member: Self.id(5)))
        try store.run("Note", Self.id(4), .add(field: "labels", member: Self.id(5)))
        #expect(reason("Note", Self.id(4), .add(field: "labels", member: Self.id(5))) == .alreadyMember(field: "labels", member: Self.id(5)))
        #expect(reason("Note", Self.id(4), .restore) == .notDeleted(entity: "Note", id: Self.id(4)))
        try store.run("Folder", Self.id(1), .delete)
        #expect(reason("Note", Self.id(6), .create(["day": .text("2026-02-03"), "folderId": .text(Self.text(1))]))
                == .deleted(entity: "Folder", id: Self.id(1)))
        // The line stays what it was: a problem equals another saying the same line.
        #expect(ChronicleModel.CommandProblem("day is required", reason: .required(field: "day")) == ChronicleModel.CommandProblem("day is required"))
    }

    @Test func aParentsDeletionDeletesHidesOrIsRefusedAsDeclared() throws {
        // The todo app: a user's deletion deletes the user's live todos in the same batch.
        var todos = Memory(TodoAppModel.model)
        let user = Self.id(1)
        try todos.run("User", user, .create(["name": .text(" Ada "), "age": .integer(36)]))
        #expect(todos.snapshot.shown("User", id: user)?.values["name"] == .text("Ada"))
        for n in 2...3 { try todos.run("Todo", Self.id(n), .create(["title": .text("t\(n)"), "deadline": .text("2026-03-01"), "userId": .text(Self.text(1))])) }
        try todos.run("Todo", Self.id(3), .delete)
        let deletion = try todos.run("User", user, .delete)
        #expect(deletion.events.map { "\($0.type) \($0.stream)" } == ["UserDeleted user-\(Self.text(1))", "TodoDeleted todo-\(Self.text(2))"])
        #expect(deletion.conditions == [.unchanged("user-\(Self.text(1))/todos", since: 4)])
        #expect(todos.snapshot.shown("Todo").isEmpty)

        // The notebook: a folder's deletion hides its notes, and its restoration shows them again.
        var notes = Memory(NotebookModel.model)
        try notes.run("Folder", Self.id(1), .create(["name": .text("Home")]))
        try notes.run("Note", Self.id(2), .create(["day": .text("2026-03-01"), "folderId": .text(Self.text(1))]))
        #expect(try notes.run("Folder", Self.id(1), .delete).events.map(\.type) == ["FolderDeleted"])
        #expect(notes.snapshot.shown("Note").isEmpty && notes.snapshot.state(of: "Note", id: Self.id(2))?.isDeleted == false)
        // A hidden note is not there to change: a command on it is refused as on a deleted one.
        #expect(notes.problem("Note", Self.id(2), .update(["body": .text("x")])) == "note \(Self.text(2)) is deleted")
        #expect(notes.problem("Note", Self.id(2), .delete) == "note \(Self.text(2)) is deleted")
        try notes.run("Folder", Self.id(1), .restore)
        #expect(notes.snapshot.shown("Note").map(\.id) == [Self.id(2)])

        // A model that refuses a parent's deletion while it has live children.
        let shelves = try ChronicleModel("shelves", version: 1) { model in
            model.entity("Shelf") { shelf in shelf.text("name") }
            model.entity("Book") { book in book.reference("shelfId", to: "Shelf", onParentDeletion: .refuseParentDeletion) }
        }
        var library = Memory(shelves)
        try library.run("Shelf", Self.id(1), .create(["name": .text("A")]))
        try library.run("Book", Self.id(2), .create(["shelfId": .text(Self.text(1))]))
        #expect(library.problem("Shelf", Self.id(1), .delete) == "shelf \(Self.text(1)) has 1 live book: delete them first")
        try library.run("Book", Self.id(2), .delete)
        try library.run("Shelf", Self.id(1), .delete)
    }

    @Test func setsChangeMemberByMember() throws {
        var store = Memory(NotebookModel.model)
        for n in 1...3 { try store.run("Label", Self.id(n), .create(["name": .text("l\(n)")])) }
        try store.run("Note", Self.id(4), .create(["day": .text("2026-03-01"), "labels": .ids([Self.id(1), Self.id(2)])]))
        let update = try store.run("Note", Self.id(4), .update(["labels": .ids([Self.id(2), Self.id(3)]), "body": .text("b")]))
        #expect(update.events.map(\.type) == ["NoteUpdated", "NoteLabeled", "NoteUnlabeled"])
        // A new member's stream is required as read (its deletion meanwhile fails the batch);
        // a member taken off is not.
        #expect(update.expectedVersions == ["note-\(Self.text(4))": 3, "label-\(Self.text(3))": 1])
        #expect(store.snapshot.shown("Note").first?.members(of: "labels") == [Self.id(2), Self.id(3)])
        #expect(store.problem("Note", Self.id(4), .add(field: "labels", member: Self.id(2))) == "note \(Self.text(4)) already has labels \(Self.text(2))")
        try store.run("Label", Self.id(1), .delete)
        #expect(store.problem("Note", Self.id(4), .add(field: "labels", member: Self.id(1))) == "label \(Self.text(1)) is deleted")
    }
}

import ChronicleSchema
import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// `chronicle list` and `chronicle show` read any app's store by the model it records: here a
/// notebook's, which Chronicle's sources never mention, written straight to the log.
@Suite("chronicle list and show on another app's store", .timeLimit(.minutes(10)))
struct GenericReadCLITests {
    static func id(_ n: Int) -> String { NotebookModel.text(n) }

    @Test("list and show print the entities and rows the recorded model shapes; what it cannot read is said, not shown")
    func readsAnotherAppsStore() async throws {
        let cli = CLIRunner()
        defer { cli.cleanup() }
        #expect(try await cli.run(["log"]).status == 0)   // creates the store
        let log = try EventLog(path: cli.store + "/log")
        _ = try log.recordModel(ModelRecord(version: 1, bytes: Array(NotebookModel.model.record())))
        let events: [(String, String, String)] = [
            ("folder-\(Self.id(1))", "FolderCreated", #"{"name":"Home"}"#),
            ("folder-\(Self.id(2))", "FolderCreated", #"{"name":"HOME"}"#),
            ("label-\(Self.id(3))", "LabelCreated", #"{"name":"red"}"#),
            ("note-\(Self.id(4))", "NoteCreated", #"{"body":"milk","day":"2026-03-01","cost":"2.50","folderId":"\#(Self.id(1))"}"#),
            ("note-\(Self.id(5))", "NoteCreated", #"{"body":"rent","day":"2026-03-01","cost":"700","folderId":"\#(Self.id(2))"}"#),
            ("note-\(Self.id(4))", "NoteLabeled", #"{"labelId":"\#(Self.id(3))"}"#),
            ("folder-\(Self.id(2))", "FolderDeleted", "{}"),
            ("note-\(Self.id(6))", "NoteArchived", "{}"),   // a type of a newer version of the app
        ]
        for (stream, type, data) in events {
            _ = try await log.append(to: stream, events: [NewEvent(type: type, data: Data(data.utf8))])
        }
        log.close()

        let notes = try await cli.run(["list", "Note", "--json"])
        #expect(notes.status == 0, "\(notes.stderr)")
        #expect(notes.trimmed == #"[{"id":"\#(Self.id(4))","body":"milk","day":"2026-03-01","cost":"2.50","pinned":false,"folderId":"\#(Self.id(1))","labels":["\#(Self.id(3))"]}]"#)
        #expect(notes.stderr.hasPrefix("note: 1 event of the log model 'notebook' version 1 cannot read is kept but not shown (first: event 8: unknown event type 'NoteArchived')"),
                "\(notes.stderr)")
        let folders = try await cli.run(["list", "Folder"])
        #expect(folders.trimmed == "id                                    name\n\(Self.id(1))  Home", "\(folders.stdout)")
        let rows = try await cli.run(["list", "NotesPerDay", "--json"])
        #expect(rows.trimmed == #"[{"day":"2026-03-01","notes":1,"pinned":0,"spent":"2.5"}]"#)
        let shown = try await cli.run(["show", "Note", Self.id(4)])
        #expect(shown.trimmed.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
                == ["id \(Self.id(4))", "body milk", "day 2026-03-01", "cost 2.50", "pinned false", "folderId \(Self.id(1))", "labels \(Self.id(3))"])

        let hidden = try await cli.run(["show", "Note", Self.id(5)])
        #expect(hidden.status == 1 && hidden.stderr.contains("error: hidden Note \(Self.id(5)): its parent is deleted"), "\(hidden.stderr)")
        let unknown = try await cli.run(["list", "Todo"])
        #expect(unknown.status == 1 && unknown.stderr.contains("error: model 'notebook' has no entity or aggregate 'Todo' (it has Folder, Note, Label, NotesPerDay)"),
                "\(unknown.stderr)")
        let badID = try await cli.run(["show", "Note", "nope"])
        #expect(badID.status == 64, "\(badID.stderr)")
    }
}

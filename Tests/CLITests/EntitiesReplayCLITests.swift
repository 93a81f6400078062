import ChronicleTestSupport
import Foundation
import Testing

/// `chronicle replay`, `list --until` and `show --until` on another app's store: what it
/// showed as of a past position, folded by the model it records, without its code.
@Suite("chronicle replay of a declared model's store", .timeLimit(.minutes(5)))
struct EntitiesReplayCLITests {
    @Test("each position shows what the app showed then; a position past the head is refused with one line")
    func replaysAsOfAPosition() async throws {
        let cli = try await GenericWriteCLITests.notebookStore()
        defer { cli.cleanup() }
        let home = try await cli.succeed(["create", "Folder", "name=Home"])                       // position 1
        let note = try await cli.succeed(["create", "Note", "day=2026-03-01", "folderId=\(home)"]) // 2
        _ = try await cli.succeed(["update", "Note", note, "body=milk"])                           // 3
        _ = try await cli.succeed(["delete", "Folder", home])                                      // 4: the note is hidden with it

        #expect(try await cli.succeed(["replay", "--until", "1"])
                == "as of position 1 (model 'notebook' version 1): entities shown: Folder 1, Note 0, Label 0; rows: NotesPerDay 0")
        #expect(try await cli.succeed(["replay", "--until", "3"])
                == "as of position 3 (model 'notebook' version 1): entities shown: Folder 1, Note 1, Label 0; rows: NotesPerDay 1")
        #expect(try await cli.succeed(["replay"])
                == "as of position 4 (model 'notebook' version 1): entities shown: Folder 0, Note 0, Label 0; rows: NotesPerDay 0")
        #expect(try await cli.succeed(["replay", "--until", "2", "--json"]) == #"{"position":2,"entities":{"Folder":[{"id":"\#(home)","name":"Home"}],"#
                + #""Note":[{"id":"\#(note)","body":null,"day":"2026-03-01","cost":null,"pinned":false,"folderId":"\#(home)","labels":[]}],"#
                + #""Label":[]},"aggregates":{"NotesPerDay":[{"day":"2026-03-01","notes":1,"pinned":0,"spent":"0"}]}}"#)

        #expect(try await cli.succeed(["list", "Note", "--json", "--until", "3"]).contains(#""body":"milk""#))
        #expect(try await cli.succeed(["list", "Note", "--json"]) == "[]")
        #expect(try await cli.succeed(["show", "Note", note, "--until", "2", "--json"]).contains(#""body":null"#))
        let before = try await cli.run(["show", "Note", note, "--until", "1"])
        #expect(before.status == 1 && before.stderr == "error: unknown Note \(note)\n", "\(before.stderr)")
        let past = try await cli.run(["list", "Note", "--until", "5"])
        #expect(past.status == 1 && past.stderr == "error: position 5 is past the end of the log (head 4)\n", "\(past.stderr)")
    }
}

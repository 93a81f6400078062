@_spi(Operator) import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

/// A tag pulled under a name another live tag holds here (two devices named tags alike
/// offline): the merge shows it with " (2)", and every command on either tag still works.
/// Found by the concurrent-devices test once only rule refusals counted as refusals: deleting
/// or renaming the tag shown with " (2)" released a name key it never held, and failed with a
/// conflict on every try.
@Suite("Tags named alike on two devices", .timeLimit(.minutes(5)))
struct CollidedTagTests {
    @Test("a tag whose name another tag holds here can be renamed, deleted and restored by undo", arguments: [false, true])
    func commandsOnACollidedTag(rename: Bool) async throws {
        let server = try await TestServer.start(tokens: ["token-a": nil])
        let folder = try TemporaryFolder("collided-tags")
        defer { folder.remove() }
        let phone = try ChronicleStore(directory: folder.path + "/phone", backgroundProjections: false)
        let laptop = try ChronicleStore(directory: folder.path + "/laptop", backgroundProjections: false)
        let configuration = SyncConfiguration.testing(server.url, token: "token-a")
        let phoneTag = try await phone.createTag(name: "Home", color: "#00aa00")
        let laptopTag = try await laptop.createTag(name: "home", color: "#ff8800")
        #expect(try await phone.push(configuration).isComplete)
        #expect(try await laptop.push(configuration).isComplete)
        #expect(try await laptop.pull(configuration).isComplete)
        try await laptop.refresh()
        // Server order: the phone's tag first, so the laptop's own tag is the one shown with " (2)".
        #expect(try await laptop.tags().map(\.name).sorted() == ["Home", "home (2)"])

        if rename {
            _ = try await laptop.updateTag(phoneTag.id, name: "Garden")
            try await laptop.refresh()
            #expect(try await laptop.tags().map(\.name).sorted() == ["Garden", "home"])
        }
        try await laptop.deleteTag(phoneTag.id)
        try await laptop.refresh()
        #expect(try await laptop.tags().map(\.id) == [laptopTag.id])
        if rename {
            _ = try await laptop.undo()
            try await laptop.refresh()
            #expect(Set(try await laptop.tags().map(\.id)) == [phoneTag.id, laptopTag.id])
        } else {
            // Restoring "Home" would give a command's blessing to two live tags named alike:
            // refused by the rule (docs/CLI.md, "Undo and redo"), appending nothing.
            let head = try laptop.log.head()
            await #expect(throws: ChronicleError.rejected(.duplicateTagName("Home"))) { try await laptop.undo() }
            #expect(try laptop.log.head() == head)
        }
        #expect(try laptop.log.verify().isIntact)
        await phone.close()
        await laptop.close()
        try await server.stop()
    }
}

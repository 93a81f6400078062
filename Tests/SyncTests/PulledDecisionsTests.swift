@_spi(Operator) import Chronicle
import ChronicleSync
import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import Testing

/// Pulled events take part in a store's decisions as its own do.
@Suite("Decisions on pulled events", .timeLimit(.minutes(5)))
struct PulledDecisionsTests {
    @Test("a pulled tag's name is taken on the pulling store; a pulled rename moves it, a pulled deletion frees it")
    func pulledTagNames() async throws {
        let server = try await TestServer.start(tokens: ["token-a": nil])
        let folderA = try TemporaryFolder("store-a"), folderB = try TemporaryFolder("store-b")
        let a = try ChronicleStore(directory: folderA.path, backgroundProjections: false)
        let b = try ChronicleStore(directory: folderB.path, backgroundProjections: false)
        let configuration = SyncConfiguration.testing(server.url, token: "token-a")
        let syncA = try a.syncEngine(configuration), syncB = try b.syncEngine(configuration)

        let work = try await a.createTag(name: "Work", color: "#FF8800")
        let ada = try await a.createUser(name: "Ada", age: 36)
        _ = try await a.createTodo(title: "Notes", deadline: "2026-12-01", userId: ada.id)
        #expect(try await syncA.push().isComplete)
        #expect(try await syncB.pull().stored == 3)
        await #expect(throws: ChronicleError.rejected(.duplicateTagName("WORK"))) {
            try await b.createTag(name: "WORK", color: "#000000")
        }
        #expect(try b.log.lastTouch(of: "user-\(ada.id.uuidString.lowercased())/todos") != nil,
                "a todo pulled for Ada must condition a deletion of Ada decided here")

        try await a.updateTag(work.id, name: "Home")
        #expect(try await syncA.push().isComplete)
        _ = try await syncB.pull()
        let local = try await b.createTag(name: "work", color: "#000000")
        await #expect(throws: ChronicleError.rejected(.duplicateTagName("HOME"))) {
            try await b.createTag(name: "HOME", color: "#000000")
        }

        try await a.deleteTag(work.id)
        #expect(try await syncA.push().isComplete)
        _ = try await syncB.pull()
        try await b.createTag(name: "Home", color: "#000000")
        try await b.refresh()
        #expect(try await b.tags().map(\.name) == ["Home", "work"])
        #expect(try await b.tags().contains { $0.id == local.id })

        await a.close()
        await b.close()
        try await server.stop()
        folderA.remove()
        folderB.remove()
    }
}

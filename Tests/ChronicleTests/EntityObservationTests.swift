@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// Observed queries of a declared model's entities: the value now, then a new one after each
/// change, whoever made it: this store's commands, a pull, another process.
@Suite("observing a declared model's entities", .timeLimit(.minutes(5)))
struct EntityObservationTests {
    /// The values a screen was given, in order.
    actor Screen {
        private(set) var values: [[String]] = []
        func show(_ value: [String]) { values.append(value) }

        /// Returns once the screen shows `expected`.
        func waitUntilShown(_ expected: [String]) async throws {
            try await withTimeout(.seconds(60), "the screen showing \(expected)") { [self] in
                while await values.last != expected { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
    }

    @Test("a list of folders and one note follow commands, a pull and another process's write")
    func followsEveryWriter() async throws {
        let folder = try TemporaryFolder("observe-entities")
        defer { folder.remove() }
        let store = try ChronicleStore(directory: folder.path + "/store", logOptions: .init(noSync: true), model: NotebookModel.model)
        let folders = Screen(), note = Screen()
        let followingFolders = Task {
            for try await shown in store.observe(.entities("Folder")) { await folders.show(shown.compactMap { $0.text("name") }.sorted()) }
        }
        try await folders.waitUntilShown([])

        // This store's command.
        let work = try await store.create("Folder", ["name": "Work"])
        try await folders.waitUntilShown(["Work"])
        let plan = try await store.create("Note", ["day": "2026-03-01", "folderId": .id(work.id)])
        let followingNote = Task {
            for try await shown in store.observe(.entity("Note", id: plan.id)) { await note.show(shown.map { [$0.text("day") ?? ""] } ?? []) }
        }
        try await note.waitUntilShown(["2026-03-01"])

        // Another process: the command line, on the same store.
        let added = try await runCommand(try Products.chronicle(), ["create", "Folder", "name=Home", "--store", folder.path + "/store"])
        #expect(added.exit.status == 0, "\(added.standardError)")
        try await folders.waitUntilShown(["Home", "Work"])

        // A pull: this store's events come back from the server, then another device's rename
        // of the folder after them, stored as a sync stores a page.
        let stream = "folder-" + work.id.uuidString.lowercased()
        let page = try serverPage(givingBack: store.log, then: [ForeignEvent(id: UUID(), stream: stream, version: 2, type: "FolderUpdated",
                                 timestampMilliseconds: 1_800_000_000_000, origin: "another-device",
                                 data: Data(#"{"name":"Office"}"#.utf8))])
        _ = try await store.importEvents(page)
        try await folders.waitUntilShown(["Home", "Office"])

        // A folder's deletion hides the note: its observer is told, though no note changed.
        try await store.delete("Folder", work.id)
        try await note.waitUntilShown([])
        try await folders.waitUntilShown(["Home"])

        followingFolders.cancel()
        followingNote.cancel()
        await store.close()
        // Each value differs from the one before it.
        for values in [await folders.values, await note.values] {
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 != $1 }, "a value repeated: \(values)")
        }
    }
}

@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// The example app in Examples/TodoApp, run as a user would run it: its own process, a store
/// of its own, a real server on loopback.
@Suite("The example app", .timeLimit(.minutes(5)))
struct ExampleAppTests {
    @Test("its scripted session: an atomic step undone whole, a refused command, an observed list, a sync that leaves nothing pending")
    func scriptedSession() async throws {
        let server = try await TestServer.start(tokens: ["app-token": "app"])
        let folder = try TemporaryFolder("example-app")
        defer { folder.remove() }
        do {
            let run = try await Executables.run(Executables.todoApp, [folder.path + "/store", server.url.absoluteString, "app-token"])
            #expect(run.exit.status == 0, "\(run.standardError)")
            let lines = run.standardOutputText.split(separator: "\n").map(String.init)
            #expect(lines.first == "step: 'Review' tagged, at position 5", "\(lines)")
            #expect(lines.contains("undo: [\"Write notes\"], tags []"), "\(lines)")
            #expect(lines.contains { $0.hasPrefix("refused: ") && $0.contains("already completed") }, "\(lines)")
            #expect(lines.contains("pending: 0"), "\(lines)")

            // What it pushed is the whole store, and the server has exactly that.
            let store = try ChronicleStore(directory: folder.path + "/store", backgroundProjections: false)
            let head = try store.head()
            await store.close()
            #expect(lines.contains { $0.hasPrefix("pushed: \(head) events") }, "\(head) events: \(lines)")
            #expect(try await server.http.pullAll(token: "app-token").count == Int(head))

            // The list it followed: each value different from the one before, ending with the completed note.
            let seen = try #require(lines.last { $0.hasPrefix("seen: ") }).dropFirst("seen: ".count)
            let values = seen.components(separatedBy: " | ")
            #expect(values.last == "Write notes ✓", "\(values)")
            #expect(values.contains("Write notes,Review"), "\(values)")
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 != $1 }, "a value repeated: \(values)")
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test("the notebook, on a model of its own: two devices write offline, sync through a server and show the same")
    func notebookSession() async throws {
        let server = try await TestServer.start(tokens: ["app-token": "app"])
        let folder = try TemporaryFolder("example-notebook")
        defer { folder.remove() }
        do {
            let run = try await Executables.run(Executables.notebookApp, [folder.path, server.url.absoluteString, "app-token"])
            #expect(run.exit.status == 0, "\(run.standardError)")
            let lines = run.standardOutputText.split(separator: "\n").map(String.init)
            #expect(lines.filter { !$0.hasPrefix("screen: ") } == [
                #"phone: ["Buy a lamp", "Call the bank #urgent", "📌 Plan the week [Work]"]"#,
                #"this week: ["Plan the week", "Call the bank"]"#,
                #"per day: ["2026-12-01: 1 notes, 0 spent", "2026-12-02: 1 notes, 2.5 spent"]"#,
                #"step: ["Buy a lamp", "Call the bank #urgent", "Pack [Travel]", "📌 Plan the week [Work]"]"#,
                #"undo: ["Buy a lamp", "Call the bank #urgent", "📌 Plan the week [Work]"], folders ["Work"]"#,
                #"refused: a folder with name "work" already exists"#,
                #"laptop after sync: ["Buy a lamp", "Call the bank #urgent", "📌 Plan the week [Work]"]"#,
                #"phone after sync: ["Buy a lamp", "Call the bank #urgent", "📌 Plan the month [Work]"]"#,
                #"laptop after sync: ["Buy a lamp", "Call the bank #urgent", "📌 Plan the month [Work]"]"#,
                #"folders: ["Home", "Work", "home (2)"]"#,
                "same on both: true",
                #"phone's conflict: folder-renamed: shown as "home (2)": a…"#,
                "phone's conflict: overwritten: title written here at …",
                #"after deleting Work: ["Buy a lamp", "Call the bank #urgent"]"#,
                #"after restoring Work: ["Buy a lamp", "Call the bank #urgent", "📌 Plan the month [Work]"]"#,
                "pending: 0",
                "version 2: headline Plan the month, archived false",
            ], "\(lines)")
            // What the phone's screen followed: lists that change with each write, sync and undo.
            let screen = try #require(lines.first { $0.hasPrefix("screen: ") })
            #expect(screen.hasSuffix(#"lists, the last ["Buy a lamp", "Call the bank", "Plan the month"], none the same as the one before: true"#), "\(screen)")

            // The server holds every event of both devices, once: the laptop's log has them all.
            // (Opened as a log: a store opened without the app's model is refused, being another app's.)
            let laptop = try EventLog(path: folder.path + "/laptop/log")
            let head = try laptop.head()
            laptop.close()
            #expect(try await server.http.pullAll(token: "app-token").count == Int(head))
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }
}

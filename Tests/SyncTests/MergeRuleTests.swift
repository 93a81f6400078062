@_spi(Operator) import Chronicle
import ChronicleSync
import ChronicleTestSupport
import ChronicleTodoDomain
import Foundation
import ChronicleProjections
import Testing

/// One scripted story per merge rule: devices are real stores syncing with the reference
/// server on loopback; "offline" is simply not syncing.
@Suite("Merge rules, one device story each", .timeLimit(.minutes(10)))
struct MergeRuleTests {
    @Test("per field the later write in the server's order wins; a device's unsent write stays on top until the server orders it")
    func laterWriteWinsPerField() async throws {
        try await withSyncedDevices(2) { devices in
            let (a, b) = (devices[0], devices[1])
            let todo = try await a.store.createTodo(title: "Draft", deadline: "2026-12-01")
            try await a.sync()
            try await b.sync()

            // B edits first (by the clock) but reaches the server last.
            try await b.store.updateTodo(todo.id, title: "Title from B", memo: "memo from B")
            try await a.store.updateTodo(todo.id, title: "Title from A", deadline: "2026-12-02")
            try await a.push()
            try await b.pull()
            // B's unsent write ranks after A's: B still sees its own title, and A's deadline.
            let onB = try #require(try await b.store.todo(todo.id))
            #expect(onB.title == "Title from B")
            #expect(onB.memo == "memo from B")
            #expect(onB.deadline.description == "2026-12-02")

            try await b.push()
            try await a.pull()
            try await b.pull()
            for device in devices {
                let merged = try #require(try await device.store.todo(todo.id))
                #expect(merged.title == "Title from B")
                #expect(merged.memo == "memo from B")
                #expect(merged.deadline.description == "2026-12-02")
            }
            // A's title lost to a write made before it: listed on A, not on B.
            let onA = try await a.store.conflicts()
            #expect(onA.map(\.kind) == ["overwritten"])
            #expect(onA.first?.stream == TodoAppEvent.todoStream(todo.id))
            #expect(onA.first?.detail.contains("title") == true)
            #expect(try await b.store.conflicts().isEmpty)
            try await expectSameModels(devices)
        }
    }

    @Test("complete and reopen: the later one wins, completing twice is no error, and the stats follow")
    func laterCompletionWins() async throws {
        try await withSyncedDevices(2) { devices in
            let (a, b) = (devices[0], devices[1])
            let todo = try await a.store.createTodo(title: "Pay rent", deadline: "2026-12-01")
            try await a.sync()
            try await b.sync()
            try await a.store.completeTodo(todo.id)
            try await b.store.completeTodo(todo.id)
            try await b.store.reopenTodo(todo.id)
            try await a.push()
            try await b.push()
            try await a.pull()
            try await b.pull()
            for device in devices {
                #expect(try await device.store.todo(todo.id)?.isCompleted == false)
                #expect(try await device.store.stats().map(\.completed) == [0])
            }
            // And the other way round: a completion made after the reopen wins.
            try await a.store.completeTodo(todo.id)
            try await a.sync()
            try await b.sync()
            for device in devices {
                #expect(try await device.store.todo(todo.id)?.isCompleted == true)
                #expect(try await device.store.stats().map(\.completed) == [1])
            }
            try await expectSameModels(devices)
        }
    }

    @Test("deletes win: a change made elsewhere before or after the deletion changes nothing, and is listed where it was made")
    func deletesWin() async throws {
        try await withSyncedDevices(2) { devices in
            let (a, b) = (devices[0], devices[1])
            let todo = try await a.store.createTodo(title: "Old", deadline: "2026-12-01")
            try await a.sync()
            try await b.sync()
            try await a.store.deleteTodo(todo.id)
            try await b.store.updateTodo(todo.id, title: "Still wanted")
            try await b.store.completeTodo(todo.id)
            try await b.push()   // B's changes reach the server first
            try await a.push()
            try await a.pull()
            try await b.pull()
            for device in devices {
                #expect(try await device.store.todo(todo.id) == nil)
                #expect(try await device.store.todos().isEmpty)
                #expect(try await device.store.stats().isEmpty)
            }
            try await expectSameModels(devices)
            // B's changes were made before it saw the deletion: one line on B, none on A.
            let onB = try await b.store.conflicts()
            #expect(onB.map(\.kind) == ["deleted"])
            #expect(onB.first?.detail.hasPrefix("2 changes") == true)
            #expect(try await a.store.conflicts().isEmpty)
            // Commands on B now see the deletion.
            await #expect(throws: ChronicleError.self) { try await b.store.updateTodo(todo.id, title: "Again") }
        }
    }

    @Test("a deletion or a write that meets its entity already deleted overrules nothing: one line, not two")
    func eventsMeetingADeletionListNothing() async throws {
        try await withSyncedDevices(3) { devices in
            let (a, b, c) = (devices[0], devices[1], devices[2])
            let todo = try await a.store.createTodo(title: "Old", deadline: "2026-12-01")
            try await a.sync()
            try await b.sync()
            try await c.sync()
            try await c.store.updateTodo(todo.id, title: "C's, unsent")
            try await a.store.deleteTodo(todo.id)
            try await b.store.updateTodo(todo.id, memo: "B's")
            try await b.store.deleteTodo(todo.id)
            try await a.push()   // the deletion that voids C's change
            try await b.push()   // a write and a deletion that meet it: they change nothing
            try await c.pull()
            let onC = try await c.store.conflicts()
            #expect(onC.map(\.kind) == ["deleted"])
            #expect(onC.first?.detail.hasPrefix("1 change made here went with its deletion on device \(a.store.log.deviceID)") == true)
        }
    }

    @Test("a todo whose user was deleted on another device is not live, whichever came first")
    func todoOfDeletedUserIsNotLive() async throws {
        try await withSyncedDevices(2) { devices in
            let (a, b) = (devices[0], devices[1])
            let ada = try await a.store.createUser(name: "Ada", age: 36)
            let kept = try await a.store.createTodo(title: "Nobody's", deadline: "2026-12-03")
            try await a.sync()
            try await b.sync()
            try await a.store.deleteUser(ada.id)
            let offline = try await b.store.createTodo(title: "For Ada", deadline: "2026-12-01", userId: ada.id)
            #expect(try await b.store.todo(offline.id) != nil, "a local write shows at once")
            try await b.push()
            try await a.push()   // the deletion reaches the server after B's todo
            try await b.pull()
            try await a.pull()
            for device in devices {
                #expect(try await device.store.users().isEmpty)
                #expect(try await device.store.todos().map(\.id) == [kept.id])
                #expect(try await device.store.stats().map(\.date.description) == ["2026-12-03"])
            }
            await #expect(throws: ChronicleError.self) { try await b.store.completeTodo(offline.id) }
            try await expectSameModels(devices)
        }
    }

    @Test("a todo's tags: the later tag or untag of one tag wins, and a tag deleted elsewhere leaves every todo")
    func tagsOfATodo() async throws {
        try await withSyncedDevices(2) { devices in
            let (a, b) = (devices[0], devices[1])
            let work = try await a.store.createTag(name: "Work", color: "#112233")
            let home = try await a.store.createTag(name: "Home", color: "#445566")
            let todo = try await a.store.createTodo(title: "Plan", deadline: "2026-12-01")
            try await a.store.tagTodo(todo.id, tag: work.id)
            try await a.sync()
            try await b.sync()
            try await a.store.untagTodo(todo.id, tag: work.id)
            try await b.store.untagTodo(todo.id, tag: work.id)
            try await b.store.tagTodo(todo.id, tag: work.id)
            try await b.store.tagTodo(todo.id, tag: home.id)
            try await a.push()
            try await b.push()
            try await a.pull()
            try await b.pull()
            for device in devices {
                #expect(try await device.store.todo(todo.id)?.tags == Todo.sortedTagIDs([work.id, home.id]))
            }
            try await a.store.deleteTag(home.id)
            try await a.sync()
            try await b.sync()
            for device in devices {
                #expect(try await device.store.todo(todo.id)?.tags == [work.id])
                #expect(try await device.store.todos(tag: home.id).isEmpty)
            }
            try await expectSameModels(devices)
        }
    }

    @Test("two tags named alike offline keep their ids; the later is shown with ' (2)' and listed on every device")
    func collidingTagNames() async throws {
        try await withSyncedDevices(3) { devices in
            let (a, b, c) = (devices[0], devices[1], devices[2])
            let first = try await a.store.createTag(name: "Work", color: "#111111")
            let second = try await b.store.createTag(name: "work", color: "#222222")
            let third = try await c.store.createTag(name: "WORK", color: "#333333")
            try await a.push()
            try await b.push()
            try await c.push()
            for device in devices { try await device.pull() }
            for device in devices {
                let tags = try await device.store.tags()
                #expect(tags.map(\.id) == [first.id, second.id, third.id])
                #expect(tags.map(\.name) == ["Work", "work (2)", "WORK (3)"])
                let conflicts = try await device.store.conflicts().filter { $0.kind == "tag-renamed" }
                #expect(conflicts.map(\.stream) == [TodoAppEvent.tagStream(second.id), TodoAppEvent.tagStream(third.id)])
            }
            // A name shown with a suffix is taken too: typing it by hand is refused.
            await #expect(throws: ChronicleError.self) { try await a.store.createTag(name: "Work (2)", color: "#444444") }
            await #expect(throws: ChronicleError.self) { try await b.store.updateTag(first.id, name: "wORK (3)") }
            try await expectSameModels(devices)
            // The first goes: the others move up.
            try await a.store.deleteTag(first.id)
            for device in devices { try await device.sync() }
            for device in devices {
                #expect(try await device.store.tags().map(\.name) == ["work", "WORK (2)"])
            }
            try await expectSameModels(devices)
        }
    }

    @Test("observers of changes() hear what a pull changed")
    func pulledChangesAreObserved() async throws {
        try await withSyncedDevices(2) { devices in
            let (a, b) = (devices[0], devices[1])
            let changes = b.store.changes()
            let ada = try await a.store.createUser(name: "Ada", age: 36)
            try await a.push()
            try await b.pull()
            var heard = false
            for await change in changes {
                if case .entity("User", ada.id, _) = change {
                    heard = true
                    break
                }
            }
            #expect(heard)
        }
    }
}

// MARK: - Devices

/// A store that syncs with the test server.
struct SyncedDevice: Sendable {
    let store: ChronicleStore
    let configuration: SyncConfiguration

    func push() async throws {
        let summary = try await store.push(configuration)
        #expect(summary.outcome == .complete, "push: \(summary.failures)")
    }

    func pull() async throws {
        let summary = try await store.pull(configuration)
        #expect(summary.outcome == .complete, "pull: \(summary.failures)")
    }

    func sync() async throws {
        try await push()
        try await pull()
    }
}

/// Runs `body` with `count` fresh stores and one reference server; checks every store's log
/// and models at the end.
func withSyncedDevices(_ count: Int, _ body: ([SyncedDevice]) async throws -> Void) async throws {
    let server = try await TestServer.start(tokens: ["token-a": nil])
    var folders: [TemporaryFolder] = []
    var devices: [SyncedDevice] = []
    do {
        for index in 0..<count {
            let folder = try TemporaryFolder("device-\(index)")
            folders.append(folder)
            let store = try ChronicleStore(directory: folder.path, logOptions: .init(noSync: true))
            devices.append(SyncedDevice(store: store, configuration: .testing(server.url, token: "token-a")))
        }
        try await body(devices)
        for device in devices {
            #expect(try device.store.log.verify().isIntact)
            try await device.store.refresh()
            #expect(try ModelStatesVerifier.problems(path: device.store.directory + "/entities", model: device.store.model,
                                                     log: device.store.log, deep: true) == [])
        }
    } catch {
        for device in devices { await device.store.close() }
        try? await server.stop()
        for folder in folders { folder.remove() }
        throw error
    }
    for device in devices { await device.store.close() }
    try await server.stop()
    for folder in folders { folder.remove() }
}

/// Every device shows the same users, todos, tags and stats.
func expectSameModels(_ devices: [SyncedDevice], sourceLocation: SourceLocation = #_sourceLocation) async throws {
    guard let first = devices.first else { return }
    let expected = try await first.store.modelsSummary()
    for device in devices.dropFirst() {
        #expect(try await device.store.modelsSummary() == expected, sourceLocation: sourceLocation)
    }
}

extension ChronicleStore {
    /// Users, todos, tags and stats as one comparable value.
    func modelsSummary() async throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let users = try encoder.encode(try await users())
        let todos = try encoder.encode(try await todos())
        let tags = try encoder.encode(try await tags())
        let stats = try encoder.encode(try await stats())
        return [users, todos, tags, stats].map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n")
    }
}

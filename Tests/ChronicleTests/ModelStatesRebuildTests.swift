@_spi(Operator) import Chronicle
import ChronicleProjections
import ChronicleTestSupport
import ChronicleLog
import Foundation
import Synchronization
import Testing

/// A declared model's stored entities rebuilt blue/green: the log is folded again into a
/// second set of tables while reads and catch-ups go on with the first, which the rebuild
/// replaces in one transaction, level with the log.
@Suite("a declared model's stored entities rebuilt blue/green", .timeLimit(.minutes(5)))
struct ModelStatesRebuildTests {
    /// A store of `count` notes of about 4 KiB (two transactions of a far catch-up or more),
    /// each note's body by its id, and the states of its own at `folder/states`, caught up.
    static func notes(_ count: Int, in folder: TemporaryFolder) async throws -> (ChronicleStore, ModelStates, [UUID: String]) {
        let store = try ChronicleStore(directory: folder.path + "/store", backgroundProjections: false,
                                       logOptions: .init(noSync: true), model: NotebookModel.model)
        var written: [UUID: String] = [:]
        for batch in 0..<(count / 100) {
            let bodies = (0..<100).map { String(repeating: "x", count: 4096) + "\(batch)-\($0)" }
            let ids = try await store.perform { step in
                try bodies.map { try step.create("Note", ["day": .text("2026-05-01"), "body": .text($0)]) }
            }
            for (id, body) in zip(ids, bodies) { written[id] = body }
        }
        let states = try ModelStates(path: folder.path + "/states", model: NotebookModel.model, log: store.log, noSync: true)
        try states.catchUp()
        return (store, states, written)
    }

    static func bodies(_ states: ModelStates) throws -> [UUID: String] {
        Dictionary(try states.shown("Note").map { ($0.id, $0.text("body") ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// The states at `path` show every note written, and hold under a deep check against the log.
    static func expectIntact(_ states: ModelStates, _ written: [UUID: String], at path: String, log: EventLog) throws {
        #expect(try bodies(states) == written)
        #expect(try ModelStatesVerifier.problems(path: path, model: NotebookModel.model, log: log, deep: true) == [])
    }

    /// Runs `body` on a thread of its own (it may block: the rebuild waits for the test).
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Result { try body() }) }.start()
        }
    }

    @Test("readers see the states as they were until the swap; what was appended meanwhile is folded before it; deep verification holds after")
    func readersKeepTheOldStatesUntilTheSwap() async throws {
        let folder = try TemporaryFolder("states-rebuild")
        defer { folder.remove() }
        let (store, states, initial) = try await Self.notes(3000, in: folder)
        var written = initial
        let head = try store.log.head()

        // After the rebuild's first transaction, it waits while the test reads and appends.
        let (midway, reachedMidway) = AsyncStream.makeStream(of: UInt64.self)
        let resume = DispatchSemaphore(value: 0)
        let calls = Mutex(0)
        let pause: @Sendable (UInt64) -> Void = { position in
            guard calls.withLock({ $0 += 1; return $0 == 1 }) else { return }
            reachedMidway.yield(position)
            reachedMidway.finish()
            resume.wait()
        }
        async let rebuilt = Self.onThread { try states.rebuild(progress: pause) }
        var positions = midway.makeAsyncIterator()
        let first = try #require(await positions.next())
        #expect(first < head, "the rebuild's first transaction reached \(first) of \(head)")
        // Readers: every note, at the head, as before the rebuild began.
        #expect(try states.position() == head)
        #expect(try Self.bodies(states) == written)
        // Appends go on; a catch-up folds them into the states readers use.
        let late = try await store.perform { step in try step.create("Note", ["day": .text("2026-05-02"), "body": .text("late")]) }
        written[late] = "late"
        try states.catchUp()
        #expect(try Self.bodies(states) == written)
        resume.signal()

        let reached = try await rebuilt.get()
        let end = try store.log.head()
        #expect(reached == end)
        #expect(try states.position() == end)
        #expect(try Self.bodies(states) == written)
        #expect(try states.rows(of: "NotesPerDay", from: nil, through: nil).map { $0.measures["notes"] } == [.integer(3000), .integer(1)])
        // The states now live in the other tables: the deep check reads those.
        try Self.expectIntact(states, written, at: folder.path + "/states", log: store.log)
        // A second rebuild swaps back.
        try states.rebuild()
        try Self.expectIntact(states, written, at: folder.path + "/states", log: store.log)
        await store.close()
    }

    @Test("a rebuild started while another runs replaces it: the first stops, superseded, and the states are the second's")
    func aNewerRebuildSupersedesTheFirst() async throws {
        let folder = try TemporaryFolder("states-rebuild-twice")
        defer { folder.remove() }
        let (store, states, written) = try await Self.notes(3000, in: folder)
        let calls = Mutex(0)
        // Between the first rebuild's transactions, a second one runs whole.
        let first = await Self.onThread {
            try states.rebuild { _ in
                guard calls.withLock({ $0 += 1; return $0 == 1 }) else { return }
                _ = try? states.rebuild()
            }
        }
        #expect(throws: ProjectionError.supersededEntities) { try first.get() }
        #expect(try states.position() == store.log.head())
        try Self.expectIntact(states, written, at: folder.path + "/states", log: store.log)
        await store.close()
    }

    @Test("a rebuild killed with SIGKILL after its first commit leaves the states as they were; the next one swaps in")
    func aKilledRebuildLeavesTheStates() async throws {
        let folder = try TemporaryFolder("states-rebuild-killed")
        defer { folder.remove() }
        let path = folder.path + "/store"
        let (store, states, written) = try await Self.notes(3000, in: folder)
        let head = try store.log.head()
        _ = states
        await store.close()
        // The store's own states (`store/entities`), caught up by the same fold.
        try FileManager.default.removeItem(atPath: folder.path + "/states")
        let catchUp = try await ChildProcess(try Products.torture(), ["catch-up-entities", "--store", path])
        #expect(await catchUp.waitForExit() == ChildProcess.Exit(status: 0, wasSignalled: false), "\(catchUp.standardErrorText)")

        let rebuild = try await ChildProcess(try Products.torture(), ["catch-up-entities", "--store", path, "--rebuild"])
        let first = try await rebuild.firstLine(what: "the rebuild's first commit") { $0.hasPrefix("committed ") || $0.hasPrefix("done ") }
        rebuild.kill()
        let exit = await rebuild.waitForExit()
        print("ModelStatesRebuildTests: the rebuild, after '\(first ?? "-")': \(exit)")

        let reopened = try ChronicleStore(directory: path, backgroundProjections: false, logOptions: .init(noSync: true), model: NotebookModel.model)
        let shown = Dictionary(try await reopened.entities("Note").map { ($0.id, $0.text("body") ?? "") }, uniquingKeysWith: { first, _ in first })
        #expect(shown == written)
        await reopened.close()
        let log = try EventLog(path: path + "/log")
        defer { log.close() }
        #expect(try ModelStatesVerifier.problems(path: path + "/entities", model: NotebookModel.model, log: log, deep: true) == [])
        // A reader in this process, which has read the active slot before the other process swaps.
        let reader = try ModelStates(path: path + "/entities", model: NotebookModel.model, log: log)
        #expect(try Self.bodies(reader) == written)
        let again = try await ChildProcess(try Products.torture(), ["catch-up-entities", "--store", path, "--rebuild"])
        let lines = try await withTimeout(.seconds(120), "the second rebuild's output") {
            var lines: [String] = []
            for await line in again.lines { lines.append(line) }
            return lines
        }
        #expect(await again.waitForExit() == ChildProcess.Exit(status: 0, wasSignalled: false), "\(again.standardErrorText)")
        #expect(lines.last == "done \(head)")
        // The swap emptied the slot it read: it reads the other now.
        #expect(try Self.bodies(reader) == written)
    }

    @Test("a store rebuilds its entities: the same notes and rows, level with the log, while it reads and writes on")
    func aStoreRebuildsItsEntities() async throws {
        let folder = try TemporaryFolder("store-rebuilds-entities")
        defer { folder.remove() }
        let store = try ChronicleStore(directory: folder.path + "/store", backgroundProjections: false,
                                       logOptions: .init(noSync: true), model: NotebookModel.model)
        let home = try await store.create("Folder", ["name": "Home"])
        for day in 1...5 { _ = try await store.create("Note", ["day": .text("2026-06-0\(day)"), "folderId": .id(home.id)]) }
        let notes = try await store.entities("Note"), rows = try await store.rows("NotesPerDay")
        async let rebuilt = store.rebuild()
        let late = try await store.create("Note", ["day": "2026-06-09"])
        let reached = try await rebuilt.position
        #expect(reached <= (try store.log.head()))
        let after = try await store.entities("Note")
        #expect(after.filter { $0.id != late.id } == notes)
        #expect(after.contains { $0.id == late.id })
        #expect(try await store.rows("NotesPerDay").prefix(5) == rows[...])
        await store.close()
    }

    @Test("observers of a store's changes hear that its entities were invalidated when a rebuild swaps them in")
    func observersHearOfTheSwap() async throws {
        let folder = try TemporaryFolder("store-rebuild-observed")
        defer { folder.remove() }
        let store = try ChronicleStore(directory: folder.path + "/store", logOptions: .init(noSync: true), model: NotebookModel.model)
        _ = try await store.create("Note", ["day": "2026-06-01"])
        let changes = store.changes()
        try await store.rebuild()
        let heard = try await withTimeout(.seconds(30), "an entitiesInvalidated change") {
            for await change in changes {
                if case .entitiesInvalidated = change { return true }
            }
            return false
        }
        #expect(heard)
        await store.close()
    }
}

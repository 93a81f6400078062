import Chronicle
import Foundation
import Testing

/// An app's view of the library: this target depends on `Chronicle` alone and compiles with
/// `MemberImportVisibility` on, so every type and member used here is reachable through
/// `import Chronicle` (the build of this file is most of the proof).
@Suite("import Chronicle is enough", .timeLimit(.minutes(5)))
struct OneImportTests {
    @Test("commands, reads, changes, errors and sync, named and used with one import")
    func everythingAnAppTouches() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-facade-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try ChronicleStore(directory: folder, logOptions: EventLogOptions(noSync: true))
        let changes: AsyncStream<ReadModelChange> = store.changes()

        let ada: User = try await store.createUser(name: "Ada", age: 36)
        let todo: Todo = try await store.createTodo(title: "Notes", deadline: "2026-12-01", userId: ada.id, memo: "G")
        let work: Chronicle.Tag = try await store.createTag(name: "Work", color: "#112233")
        _ = try await store.tagTodo(todo.id, tag: work.id)
        _ = try await store.completeTodo(todo.id)

        let listed: [Todo] = try await store.todos(on: "2026-12-01")
        #expect(listed.map(\.title) == ["Notes"])
        #expect(listed.first?.tags == [work.id])
        #expect(listed.first?.isCompleted == true)
        let stats: [DailyStat] = try await store.stats()
        let day: CalendarDay = try #require(stats.first?.date)
        #expect(day.description == "2026-12-01")
        #expect(stats.first?.completed == 1)

        do {
            _ = try await store.completeTodo(todo.id)
            Issue.record("completing twice must be refused")
        } catch ChronicleError.rejected(let rule) {
            // Every method throws ChronicleError: a pattern of its cases catches.
            let domain: DomainError = rule
            #expect(domain.description.contains("already completed"))
        }

        let status: SyncStatus = try store.syncStatus()
        #expect(status.pending == 5)
        let conflicts: [MergeConflict] = try await store.conflicts()
        #expect(conflicts.isEmpty)
        let configuration = SyncConfiguration(remote: URL(string: "http://127.0.0.1:9")!, token: "t",
                                              retry: RetryPolicy(base: .milliseconds(1), maximum: .milliseconds(1),
                                                                 jitter: .none, maxAttempts: 1))
        let pushed: PushSummary = try await store.push(configuration)
        #expect(pushed.pending == 5)

        var heard: [UUID] = []
        for await change in changes {
            if case .entity("User", let id, _) = change { heard.append(id) }
            if !heard.isEmpty { break }
        }
        #expect(heard == [ada.id])
        await store.close()
    }
}

extension OneImportTests {
    @Test("a closed store refuses commands and reads alike with ChronicleError.closed")
    func closedMeansClosed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-closed-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try ChronicleStore(directory: folder, logOptions: EventLogOptions(noSync: true))
        let ada = try await store.createUser(name: "Ada", age: 36)
        await store.close()
        await #expect(throws: ChronicleError.closed) { try await store.createUser(name: "Bob", age: 1) }
        await #expect(throws: ChronicleError.closed) { try await store.users() }
        await #expect(throws: ChronicleError.closed) { try await store.user(ada.id) }
        await #expect(throws: ChronicleError.closed) { try await store.conflicts() }
        #expect(throws: ChronicleError.closed) { try store.syncStatus() }
        // Opened again, everything is there.
        let reopened = try ChronicleStore(directory: folder, logOptions: EventLogOptions(noSync: true))
        #expect(try await reopened.users().map(\.id) == [ada.id])
        await reopened.close()
    }
}

import Chronicle
import Foundation
import Testing

/// An app syncs through its store with `import Chronicle` alone (this file imports neither
/// the sync module nor the projections).
@Suite("Syncing through ChronicleStore", .timeLimit(.minutes(5)))
struct SyncFacadeTests {
    @Test("a store's sync status counts its unsent events; nothing is overruled before any pull; a failed push keeps them pending")
    func statusConflictsAndAFailedPush() async throws {
        let t = try TemporaryStore()
        let ada = try await t.store.createUser(name: "Ada", age: 36)
        _ = try await t.store.createTodo(title: "Notes", deadline: "2026-12-01", userId: ada.id)
        let status: SyncStatus = try t.store.syncStatus()
        #expect(status.pending == 2)
        #expect(status.pulledPosition == 0)
        let conflicts: [MergeConflict] = try await t.store.conflicts()
        #expect(conflicts.isEmpty)

        // Nothing listens on port 9: the push gives up after its attempts, events kept.
        let configuration = SyncConfiguration(
            remote: URL(string: "http://127.0.0.1:9")!, token: "t",
            retry: RetryPolicy(base: .milliseconds(1), maximum: .milliseconds(2), jitter: .none, maxAttempts: 2),
            requestTimeout: .seconds(2))
        let pushed: PushSummary = try await t.store.push(configuration)
        #expect(!pushed.isComplete)
        #expect(pushed.pending == 2)
        let pulled: PullSummary = try await t.store.pull(configuration)
        #expect(!pulled.isComplete)
        #expect(try t.store.syncStatus().pending == 2)
        let engine: SyncEngine = try t.store.syncEngine(configuration)
        #expect(engine.configuration.remote == configuration.remote)
        await t.cleanup()
    }
}

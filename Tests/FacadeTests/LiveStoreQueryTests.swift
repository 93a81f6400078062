import Chronicle
import Foundation
import Observation
import Synchronization
import Testing

/// The observable query a view model holds (`LiveStoreQuery`), on Linux as on Apple platforms:
/// its value follows the store, and observers registered with `withObservationTracking` fire.
@Suite("A live query for views", .timeLimit(.minutes(2)))
struct LiveStoreQueryTests {
    /// Waits (at most 10 s) until `condition` holds on the main actor.
    @MainActor
    func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting until \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test("a view model's live queries show the store's changes and tell their observers, each its own")
    @MainActor
    func followsTheStore() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-live-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try ChronicleStore(directory: folder, logOptions: EventLogOptions(noSync: true))
        do {
            _ = try await store.createTodo(title: "Before", deadline: "2026-12-01")
            let todos = LiveStoreQuery(.todos(on: "2026-12-01"), in: store)
            let stats = LiveStoreQuery(.stats(), in: store)
            #expect(todos.value.isEmpty && !todos.isLoaded, "the placeholder until the first read")
            try await waitUntil("the first read") { todos.isLoaded && stats.isLoaded }
            #expect(todos.value.map(\.title) == ["Before"])
            #expect(stats.value.map(\.total) == [1])

            let todosChanged = Fired(), statsChanged = Fired()
            withObservationTracking { _ = todos.value } onChange: { todosChanged.note() }
            withObservationTracking { _ = stats.value } onChange: { statsChanged.note() }
            let rent = try await store.createTodo(title: "Pay rent", deadline: "2026-12-01")
            try await waitUntil("both show the new todo") { todos.value.count == 2 && stats.value.first?.total == 2 }
            #expect(todosChanged.times == 1 && statsChanged.times == 1)
            #expect(todos.value.map(\.title) == ["Before", "Pay rent"])

            // A change the query does not show tells its observers nothing.
            let quiet = Fired()
            withObservationTracking { _ = todos.value } onChange: { quiet.note() }
            _ = try await store.createUser(name: "Ada", age: 36)
            _ = try await store.createTodo(title: "Elsewhere", deadline: "2026-12-02")
            try await waitUntil("the stats show the other day") { stats.value.count == 2 }
            try await Task.sleep(for: .milliseconds(100))
            #expect(quiet.times == 0, "no new value for changes it does not show")

            // One entity: nil once deleted.
            let one = LiveStoreQuery(.todo(rent.id), in: store)
            try await waitUntil("the todo is read") { one.value?.title == "Pay rent" }
            try await store.deleteTodo(rent.id)
            try await waitUntil("the deletion shows") { one.value == nil && todos.value.count == 1 }

            // Stopped, it keeps its last value.
            todos.stop()
            _ = try await store.createTodo(title: "After stop", deadline: "2026-12-01")
            try await waitUntil("the stats follow") { stats.value.first?.total == 2 }
            try await Task.sleep(for: .milliseconds(100))
            #expect(todos.value.map(\.title) == ["Before"])
            #expect(todos.failure == nil)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}

/// Counts an observer's `onChange` calls, which may come on any thread.
private final class Fired: Sendable {
    private let count = Mutex(0)
    func note() { count.withLock { $0 += 1 } }
    var times: Int { count.withLock { $0 } }
}

import Chronicle
import Foundation
import Testing

/// The rest of what an app does with the store, through `import Chronicle` alone: observed
/// queries, atomic steps with their positions, audit reads and maintenance, typed errors.
@Suite("The store as an app's whole product", .timeLimit(.minutes(5)))
struct AppFacadeTests {
    /// A fresh store in a temporary folder, closed and removed after `body`.
    static func withStore(_ body: (ChronicleStore) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-app-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try ChronicleStore(directory: folder, logOptions: EventLogOptions(noSync: true))
        do {
            try await body(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test("an observed query gives its current value, then each new one, never the same twice, and ends when the store closes")
    func observedQuery() async throws {
        try await Self.withStore { store in
            _ = try await store.createTodo(title: "Before", deadline: "2026-12-01")
            var values = store.observe(.todos(on: "2026-12-01")).makeAsyncIterator()
            #expect(try await values.next()?.map(\.title) == ["Before"])

            let after = try await store.createTodo(title: "After", deadline: "2026-12-01")
            #expect(try await values.next()?.map(\.title) == ["Before", "After"], "by deadline, then id (UUIDv7: creation order)")
            // Changes elsewhere (another day, a user) alter nothing this query shows: no value for them.
            _ = try await store.createTodo(title: "Elsewhere", deadline: "2026-12-02")
            _ = try await store.createUser(name: "Ada", age: 36)
            _ = try await store.completeTodo(after.id)
            let next = try #require(try await values.next())
            #expect(next.first { $0.id == after.id }?.isCompleted == true, "\(next)")
            #expect(next.count == 2)

            let ending = Task { try await values.next() }
            await store.close()
            #expect(try await ending.value == nil, "the observation outlived its store")
        }
    }

    @Test("the stats of a range are observed the same way")
    func observedStats() async throws {
        try await Self.withStore { store in
            var stats = store.observe(.stats(from: "2026-12-01", to: "2026-12-31")).makeAsyncIterator()
            #expect(try await stats.next() == [])
            let todo = try await store.createTodo(title: "Report", deadline: "2026-12-05")
            #expect(try await stats.next()?.map(\.total) == [1])
            _ = try await store.completeTodo(todo.id)
            #expect(try await stats.next()?.map(\.completed) == [1])
        }
    }

    @Test("several commands as one step: one batch, one undo step, the position it wrote; a broken rule appends nothing")
    func atomicStep() async throws {
        try await Self.withStore { store in
            let written = try await store.write { step in
                let ada = try await step.createUser(name: "Ada", age: 36)
                let todo = try await step.createTodo(title: "Notes", deadline: "2026-12-01", userId: ada.id)
                let work = try await step.createTag(name: "Work", color: "#112233")
                return try await step.tagTodo(todo.id, tag: work.id)
            }
            #expect(written.position == 4, "four events, one batch")
            #expect(written.value.tags.count == 1)
            #expect(store.lastWrittenPosition == 4)
            try await store.waitForModels(through: written.position)
            #expect(try await store.todos(user: written.value.userId).map(\.id) == [written.value.id])
            #expect(try store.events(after: 0).map(\.type) == ["UserCreated", "TodoCreated", "TagCreated", "TodoTagged"])

            // The second command breaks a rule (the tag name is taken): the first is not appended either.
            do {
                _ = try await store.write { step in
                    _ = try await step.createUser(name: "Bob", age: 40)
                    _ = try await step.createTag(name: "WORK", color: "#000000")
                }
                Issue.record("a step with a duplicate tag name was appended")
            } catch let error as ChronicleError {
                #expect(error == .rejected(.duplicateTagName("WORK")), "\(error)")
            }
            #expect(try store.head() == 4)
            #expect(try await store.users().map(\.name) == ["Ada"])

            // One undo reverts the whole step.
            let undone = try await store.undo()
            #expect(undone.map(\.type) == ["TagDeleted", "TodoDeleted", "UserDeleted"], "newest creation first, each deleted once")
            #expect(try await store.users().isEmpty)
            #expect(try await store.todos().isEmpty)
            #expect(try await store.tags().isEmpty)
        }
    }

    @Test("audit reads, replay, verify and rebuild on the store, with errors an app can switch on")
    func auditAndMaintenance() async throws {
        try await Self.withStore { store in
            let ada = try await store.createUser(name: "Ada", age: 36)
            _ = try await store.updateUser(ada.id, age: 37)
            #expect(try store.head() == 2)
            let history = try store.events(inStream: "user-" + ada.id.uuidString.lowercased())
            #expect(history.map(\.version) == [1, 2])
            #expect(try store.replay(until: 1).snapshot.user(ada.id)?.age == 36)
            #expect(try store.verify().isIntact)
            let rebuilt = try await store.rebuild()
            #expect(rebuilt.eventsRead == 2)
            #expect(try await store.user(ada.id)?.age == 37)
            do {
                _ = try store.replay(until: 99)
                Issue.record("a replay past the end was accepted")
            } catch let error as ChronicleError {
                #expect(error == .beyondHead(position: 99, head: 2))
            }
        }
    }
}

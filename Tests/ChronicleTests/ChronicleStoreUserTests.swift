@_spi(Operator) import Chronicle
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import Testing
import ChronicleTestSupport

@Suite("ChronicleStore users", .timeLimit(.minutes(10)))
struct ChronicleStoreUserTests {
    @Test("a created user is stored trimmed and readable at once")
    func createAndRead() async throws {
        let t = try TemporaryStore()
        let user = try await t.store.createUser(name: "  Ada Lovelace ", age: 36)
        #expect(user.name == "Ada Lovelace")
        #expect(try await t.store.user(user.id) == user)
        #expect(try await t.store.users() == [user])
        let events = try t.store.log.read(stream: TodoAppEvent.userStream(user.id))
        #expect(events.map(\.type) == ["UserCreated"])
        await t.cleanup()
    }

    @Test("each invalid user command is rejected and appends nothing",
          arguments: [("", 30), ("   ", 30), (String(repeating: "x", count: 201), 30), ("Bob", -1), ("Bob", 151)])
    func invalidCreate(name: String, age: Int) async throws {
        let t = try TemporaryStore()
        _ = try await t.store.createUser(name: "Seed", age: 1)
        let before = try t.fingerprint()
        await #expect(throws: ChronicleError.self) { try await t.store.createUser(name: name, age: age) }
        let after = try t.fingerprint()
        #expect(before == after)
        await t.cleanup()
    }

    @Test("updates, and rejections of unknown, deleted and empty updates")
    func updates() async throws {
        let t = try TemporaryStore()
        let user = try await t.store.createUser(name: "Ada", age: 36)
        let updated = try await t.store.updateUser(user.id, age: 37)
        #expect(updated.age == 37 && updated.name == "Ada")
        let before = try t.fingerprint()
        await #expect(throws: ChronicleError.rejected(.nothingToUpdate)) { try await t.store.updateUser(user.id) }
        let unknown = UUID()
        await #expect(throws: ChronicleError.rejected(.unknownUser(unknown))) { try await t.store.updateUser(unknown, name: "X") }
        await #expect(throws: ChronicleError.rejected(.ageOutOfRange(200))) { try await t.store.updateUser(user.id, age: 200) }
        #expect(try t.fingerprint() == before)
        try await t.store.deleteUser(user.id)
        let afterDelete = try t.fingerprint()
        await #expect(throws: ChronicleError.rejected(.userDeleted(user.id))) { try await t.store.updateUser(user.id, name: "Y") }
        await #expect(throws: ChronicleError.rejected(.userDeleted(user.id))) { try await t.store.deleteUser(user.id) }
        #expect(try t.fingerprint() == afterDelete)
        #expect(try await t.store.user(user.id) == nil)
        await t.cleanup()
    }

    @Test("deleting a user deletes the user's live todos in one atomic batch")
    func cascade() async throws {
        let t = try TemporaryStore()
        let ada = try await t.store.createUser(name: "Ada", age: 36)
        let bob = try await t.store.createUser(name: "Bob", age: 40)
        let a = try await t.store.createTodo(title: "A", deadline: "2026-12-01", userId: ada.id)
        let b = try await t.store.createTodo(title: "B", deadline: "2026-12-02", userId: ada.id)
        let c = try await t.store.createTodo(title: "C", deadline: "2026-12-02", userId: ada.id)
        let keep = try await t.store.createTodo(title: "Bob's", deadline: "2026-12-02", userId: bob.id)
        try await t.store.completeTodo(b.id)
        let gone = try await t.store.createTodo(title: "Already gone", deadline: "2026-12-03", userId: ada.id)
        try await t.store.deleteTodo(gone.id)
        let head = try t.store.log.head()

        try await t.store.deleteUser(ada.id)

        let batch = try t.store.log.read(after: head, limit: 100)
        #expect(batch.map(\.type) == ["UserDeleted", "TodoDeleted", "TodoDeleted", "TodoDeleted"])
        #expect(Set(batch.dropFirst().map(\.stream)) == Set([a, b, c].map { TodoAppEvent.todoStream($0.id) }))
        #expect(batch.map(\.position) == Array((head + 1)...(head + 4)))
        #expect(try await t.store.todos(user: ada.id).isEmpty)
        #expect(try await t.store.todos().map(\.id) == [keep.id])
        #expect(try await t.store.stats() == [DailyStat(date: try CalendarDay(parsing: "2026-12-02"), total: 1, completed: 0)])
        await t.cleanup()
    }
}

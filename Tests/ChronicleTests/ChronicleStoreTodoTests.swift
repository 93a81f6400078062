@_spi(Operator) import Chronicle
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import Testing
import ChronicleTestSupport

@Suite("ChronicleStore todos", .timeLimit(.minutes(10)))
struct ChronicleStoreTodoTests {
    @Test("a deadline change appends one TodoUpdated carrying the new deadline and moves the day")
    func deadlineChange() async throws {
        let t = try TemporaryStore()
        let todo = try await t.store.createTodo(title: "Report", deadline: "2026-03-01")
        try await t.store.completeTodo(todo.id)
        let head = try t.store.log.head()
        let moved = try await t.store.updateTodo(todo.id, deadline: "2026-03-05")
        #expect(moved.deadline.description == "2026-03-05" && moved.isCompleted)
        let appended = try t.store.log.read(after: head, limit: 10)
        #expect(appended.count == 1)
        #expect(appended.first?.type == "TodoUpdated")
        let data = try #require(appended.first?.data)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        #expect(object?["deadline"] as? String == "2026-03-05")
        #expect(try await t.store.stats() == [DailyStat(date: try CalendarDay(parsing: "2026-03-05"), total: 1, completed: 1)])
        await t.cleanup()
    }

    @Test("invalid todo commands are rejected and the log is unchanged")
    func rejections() async throws {
        let t = try TemporaryStore()
        let user = try await t.store.createUser(name: "Ada", age: 36)
        let todo = try await t.store.createTodo(title: "T", deadline: "2026-01-31", userId: user.id, memo: "m")
        try await t.store.completeTodo(todo.id)
        let deletedUser = try await t.store.createUser(name: "Gone", age: 3)
        try await t.store.deleteUser(deletedUser.id)
        let before = try t.fingerprint()
        let unknown = UUID()
        let attempts: [(String, () async throws -> Void)] = [
            ("bad date", { _ = try await t.store.createTodo(title: "X", deadline: "2026-02-30") }),
            ("malformed date", { _ = try await t.store.createTodo(title: "X", deadline: "tomorrow") }),
            ("empty title", { _ = try await t.store.createTodo(title: "  ", deadline: "2026-02-28") }),
            ("long title", { _ = try await t.store.createTodo(title: String(repeating: "t", count: 501), deadline: "2026-02-28") }),
            ("unknown owner", { _ = try await t.store.createTodo(title: "X", deadline: "2026-02-28", userId: unknown) }),
            ("deleted owner", { _ = try await t.store.createTodo(title: "X", deadline: "2026-02-28", userId: deletedUser.id) }),
            ("complete twice", { _ = try await t.store.completeTodo(todo.id) }),
            ("unknown todo", { _ = try await t.store.completeTodo(unknown) }),
            ("bad new deadline", { _ = try await t.store.updateTodo(todo.id, deadline: "2026-13-01") }),
        ]
        for (name, attempt) in attempts {
            do {
                try await attempt()
                Issue.record("\(name): was accepted")
            } catch let error as ChronicleError {
                #expect(!error.description.isEmpty, "\(name)")
            }
            #expect(try t.fingerprint() == before, "\(name) appended something")
        }
        try await t.store.deleteTodo(todo.id)
        let afterDelete = try t.fingerprint()
        await #expect(throws: ChronicleError.rejected(.todoDeleted(todo.id))) { try await t.store.reopenTodo(todo.id) }
        await #expect(throws: ChronicleError.rejected(.todoDeleted(todo.id))) { try await t.store.deleteTodo(todo.id) }
        #expect(try t.fingerprint() == afterDelete)
        await t.cleanup()
    }

    @Test("two tasks completing the same todo at once: exactly one succeeds")
    func concurrentComplete() async throws {
        let t = try TemporaryStore()
        for round in 0..<20 {
            let todo = try await t.store.createTodo(title: "Race \(round)", deadline: "2026-06-01")
            let store = t.store
            let results = await withTaskGroup(of: Result<Todo, any Error>.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        do { return .success(try await store.completeTodo(todo.id)) } catch { return .failure(error) }
                    }
                }
                var all: [Result<Todo, any Error>] = []
                for await result in group { all.append(result) }
                return all
            }
            let successes = results.filter { if case .success = $0 { true } else { false } }
            #expect(successes.count == 1)
            for case .failure(let error) in results {
                #expect(error as? ChronicleError == .rejected(.alreadyCompleted(todo.id)))
            }
            let events = try t.store.log.read(stream: TodoAppEvent.todoStream(todo.id))
            #expect(events.map(\.type) == ["TodoCreated", "TodoCompleted"])
        }
        await t.cleanup()
    }

    @Test("many tasks creating todos at once: every todo is stored and listed")
    func concurrentCreates() async throws {
        let t = try TemporaryStore()
        let store = t.store
        let ids = try await withThrowingTaskGroup(of: UUID.self) { group in
            for i in 0..<200 {
                group.addTask { try await store.createTodo(title: "T\(i)", deadline: "2026-07-0\(i % 9 + 1)").id }
            }
            var ids = Set<UUID>()
            for try await id in group { ids.insert(id) }
            return ids
        }
        #expect(ids.count == 200)
        #expect(Set(try await t.store.todos().map(\.id)) == ids)
        #expect(try await t.store.stats().reduce(0) { $0 + $1.total } == 200)
        await t.cleanup()
    }
}

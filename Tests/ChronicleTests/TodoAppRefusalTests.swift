@_spi(Operator) import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

/// Each rule of the todo app's commands, refused through the store with the app's own text
/// (`DomainError`, docs/CLI.md): the app's checks of the values first, then the model's rules
/// told as the app tells them. Nothing is appended by a refusal.
@Suite("the todo app's refusals keep their texts", .timeLimit(.minutes(2)))
struct TodoAppRefusalTests {
    /// Runs `command`, expects `refusal`, and that the log did not grow.
    static func expect(_ store: ChronicleStore, _ refusal: DomainError, sourceLocation: SourceLocation = #_sourceLocation,
                       _ command: () async throws -> Void) async throws {
        let head = try store.log.head()
        await #expect(throws: ChronicleError.rejected(refusal), sourceLocation: sourceLocation) { try await command() }
        #expect(try store.log.head() == head, "a refused command appended", sourceLocation: sourceLocation)
    }

    @Test func unknownAndDeletedEntitiesAreNamed() async throws {
        let t = try TemporaryStore()
        let store = t.store
        let (nobody, nothing, noTag) = (UUID(), UUID(), UUID())
        try await Self.expect(store, .unknownUser(nobody)) { _ = try await store.updateUser(nobody, age: 3) }
        try await Self.expect(store, .unknownUser(nobody)) { try await store.deleteUser(nobody) }
        try await Self.expect(store, .unknownUser(nobody)) { _ = try await store.createTodo(title: "t", deadline: "2026-12-01", userId: nobody) }
        try await Self.expect(store, .unknownTodo(nothing)) { _ = try await store.completeTodo(nothing) }
        try await Self.expect(store, .unknownTodo(nothing)) { _ = try await store.updateTodo(nothing, memo: "m") }
        try await Self.expect(store, .unknownTag(noTag)) { _ = try await store.updateTag(noTag, color: "#000000") }

        let ada = try await store.createUser(name: "Ada", age: 36)
        let todo = try await store.createTodo(title: "Pay rent", deadline: "2026-12-01", userId: ada.id)
        let work = try await store.createTag(name: "Work", color: "#112233")
        try await Self.expect(store, .unknownTag(noTag)) { _ = try await store.tagTodo(todo.id, tag: noTag) }
        try await store.deleteTag(work.id)
        try await Self.expect(store, .tagDeleted(work.id)) { _ = try await store.tagTodo(todo.id, tag: work.id) }
        try await Self.expect(store, .tagDeleted(work.id)) { try await store.deleteTag(work.id) }
        try await store.deleteUser(ada.id)
        try await Self.expect(store, .userDeleted(ada.id)) { _ = try await store.updateUser(ada.id, name: "Ada L.") }
        try await Self.expect(store, .userDeleted(ada.id)) { _ = try await store.createTodo(title: "t", deadline: "2026-12-01", userId: ada.id) }
        try await Self.expect(store, .todoDeleted(todo.id)) { _ = try await store.completeTodo(todo.id) }
        await t.cleanup()
    }

    @Test func completionsTagsAndNamesFollowTheState() async throws {
        let t = try TemporaryStore()
        let store = t.store
        let todo = try await store.createTodo(title: "Pay rent", deadline: "2026-12-01")
        try await Self.expect(store, .notCompleted(todo.id)) { _ = try await store.reopenTodo(todo.id) }
        _ = try await store.completeTodo(todo.id)
        try await Self.expect(store, .alreadyCompleted(todo.id)) { _ = try await store.completeTodo(todo.id) }
        let work = try await store.createTag(name: "Work", color: "#112233")
        let home = try await store.createTag(name: "Home", color: "#445566")
        try await Self.expect(store, .notTagged(todo: todo.id, tag: work.id)) { _ = try await store.untagTodo(todo.id, tag: work.id) }
        _ = try await store.tagTodo(todo.id, tag: work.id)
        try await Self.expect(store, .alreadyTagged(todo: todo.id, tag: work.id)) { _ = try await store.tagTodo(todo.id, tag: work.id) }
        try await Self.expect(store, .duplicateTagName("WORK")) { _ = try await store.createTag(name: " WORK ", color: "#000000") }
        try await Self.expect(store, .duplicateTagName("work")) { _ = try await store.updateTag(home.id, name: "work") }
        #expect(try await store.updateTag(work.id, name: "WORK").name == "WORK", "its own name, in another case, is free to it")
        try await Self.expect(store, .nothingToUpdate) { _ = try await store.updateTag(home.id) }
        try await Self.expect(store, .nothingToUpdate) { _ = try await store.updateTodo(todo.id) }
        await t.cleanup()
    }

    @Test func theValuesAreCheckedBeforeTheState() async throws {
        let t = try TemporaryStore()
        let store = t.store
        let nobody = UUID()
        // An unknown user and a bad age: the age is named, as the app has always checked it first.
        try await Self.expect(store, .ageOutOfRange(-1)) { _ = try await store.updateUser(nobody, age: -1) }
        try await Self.expect(store, .nothingToUpdate) { _ = try await store.updateUser(nobody) }
        try await Self.expect(store, .emptyName) { _ = try await store.createUser(name: " ", age: 500) }
        try await Self.expect(store, .invalidDate("2026-02-30")) {
            _ = try await store.createTodo(title: "t", deadline: "2026-02-30", userId: nobody)
        }
        try await Self.expect(store, .emptyTagName) { _ = try await store.createTag(name: " ", color: "red") }
        try await Self.expect(store, .invalidColor("red")) { _ = try await store.createTag(name: "Work", color: "red") }
        await t.cleanup()
    }
}

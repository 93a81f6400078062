@_spi(Operator) import Chronicle
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import Testing
import ChronicleTestSupport

@Suite("ChronicleStore undo and redo", .timeLimit(.minutes(10)))
struct ChronicleStoreUndoTests {
    @Test("undo reverts the last command with compensating events, redo applies it again; the log only grows")
    func undoAndRedoOneCommand() async throws {
        let t = try TemporaryStore()
        #expect(!t.store.canUndo && !t.store.canRedo)
        let ada = try await t.store.createUser(name: "Ada", age: 36)
        try await t.store.updateUser(ada.id, name: "Ada L.", age: 37)
        #expect(t.store.canUndo && !t.store.canRedo)

        let undone = try await t.store.undo()
        #expect(undone.map(\.type) == ["UserUpdated"])
        #expect(String(decoding: undone[0].data, as: UTF8.self) == #"{"age":36,"name":"Ada"}"#)
        #expect(try await t.store.user(ada.id) == ada)
        #expect(t.store.canUndo && t.store.canRedo)

        let redone = try await t.store.redo()
        #expect(redone.map(\.type) == ["UserUpdated"])
        #expect(try await t.store.user(ada.id)?.name == "Ada L.")
        #expect(!t.store.canRedo)

        try await t.store.undo(steps: 2)   // the update, then the creation
        #expect(try await t.store.users().isEmpty)
        #expect(try t.store.log.read().map(\.type) == ["UserCreated", "UserUpdated", "UserUpdated", "UserUpdated", "UserUpdated", "UserDeleted"])
        await t.cleanup()
    }

    @Test("undoing a user's deletion brings the user and the todos that went with it back, tags and stats included")
    func undoACascade() async throws {
        let t = try TemporaryStore()
        let ada = try await t.store.createUser(name: "Ada", age: 36)
        let work = try await t.store.createTag(name: "Work", color: "#112233")
        let notes = try await t.store.createTodo(title: "Write notes", deadline: "2026-12-01", userId: ada.id, memo: "chapter 2")
        try await t.store.completeTodo(notes.id)
        try await t.store.tagTodo(notes.id, tag: work.id)
        let before = (try await t.store.todos(), try await t.store.stats())
        try await t.store.deleteUser(ada.id)
        #expect(try await t.store.todos().isEmpty)
        #expect(try await t.store.stats().isEmpty)

        let undone = try await t.store.undo()
        // The user first: a todo restored before its user would be restored hidden.
        #expect(undone.map(\.type) == ["UserRestored", "TodoRestored"])
        #expect(undone.allSatisfy { $0.data == Data("{}".utf8) })
        #expect(try await t.store.user(ada.id) == ada)
        #expect(try await t.store.todos() == before.0)
        #expect(try await t.store.todos().first?.tags == [work.id])
        #expect(try await t.store.stats() == before.1)

        try await t.store.redo()
        #expect(try await t.store.users().isEmpty)
        #expect(try await t.store.todos().isEmpty)
        await t.cleanup()
    }

    @Test("undo puts back previous values: a memo that was absent is cleared, a completion reopens, a tag deletion restores it on its todos")
    func undoEachKindOfChange() async throws {
        let t = try TemporaryStore()
        let todo = try await t.store.createTodo(title: "Pay rent", deadline: "2026-12-01")
        try await t.store.updateTodo(todo.id, title: "Pay the rent", deadline: "2026-12-03", memo: "bank")
        try await t.store.undo()
        #expect(try await t.store.todo(todo.id) == todo)
        #expect(try await t.store.stats().map(\.date.description) == ["2026-12-01"])

        try await t.store.completeTodo(todo.id)
        try await t.store.undo()
        #expect(try await t.store.todo(todo.id)?.isCompleted == false)

        let home = try await t.store.createTag(name: "Home", color: "#00aa00")
        try await t.store.tagTodo(todo.id, tag: home.id)
        try await t.store.deleteTag(home.id)
        #expect(try await t.store.todo(todo.id)?.tags == [])
        #expect(try await t.store.undo().map(\.type) == ["TagRestored"])
        #expect(try await t.store.tag(home.id) == home)
        #expect(try await t.store.todo(todo.id)?.tags == [home.id])
        #expect(try await t.store.undo().map(\.type) == ["TodoUntagged"])
        #expect(try await t.store.undo().map(\.type) == ["TagDeleted"])
        await t.cleanup()
    }

    @Test("a group of commands is one step; a new command forgets what could be redone")
    func groupsAndRedoClearing() async throws {
        let t = try TemporaryStore()
        let kept = try await t.store.createTodo(title: "Kept", deadline: "2026-12-01")
        let trip = try await t.store.undoGroup {
            let trip = try await t.store.createTodo(title: "Plan trip", deadline: "2026-12-04")
            let travel = try await t.store.createTag(name: "Travel", color: "#abcdef")
            try await t.store.tagTodo(trip.id, tag: travel.id)
            return trip
        }
        // The todo the step created goes with its tag on it: no untagging first.
        #expect(try await t.store.undo().map(\.type) == ["TagDeleted", "TodoDeleted"])
        #expect(try await t.store.todo(trip.id) == nil)
        #expect(try await t.store.tags().isEmpty)
        #expect(try await t.store.todos() == [kept])

        try await t.store.completeTodo(kept.id)   // a new command: the group cannot be redone any more
        #expect(!t.store.canRedo)
        await #expect(throws: ChronicleError.rejected(.nothingToRedo)) { try await t.store.redo() }
        await t.cleanup()
    }

    @Test("nothing to undo, nothing to redo and a step count below 1 are errors that append nothing")
    func refusals() async throws {
        let t = try TemporaryStore()
        await #expect(throws: ChronicleError.rejected(.nothingToUndo)) { try await t.store.undo() }
        _ = try await t.store.createUser(name: "Ada", age: 36)
        let before = try t.fingerprint()
        await #expect(throws: ChronicleError.rejected(.nothingToRedo)) { try await t.store.redo() }
        await #expect(throws: ChronicleError.rejected(.invalidStepCount(0))) { try await t.store.undo(steps: 0) }
        #expect(try t.fingerprint() == before)
        try await t.store.undo(steps: 5)   // fewer steps than asked: the one there is
        await #expect(throws: ChronicleError.rejected(.nothingToUndo)) { try await t.store.undo() }
        await t.cleanup()
    }

    @Test("an undo that another device's change overtook is refused and appends nothing")
    func overtakenByAnotherDevice() async throws {
        let t = try TemporaryStore()
        let todo = try await t.store.createTodo(title: "Pay rent", deadline: "2026-12-01")
        try await t.store.updateTodo(todo.id, title: "Pay the rent")
        // Another device's change to the same todo, as a pull stores it.
        let stream = TodoAppEvent.todoStream(todo.id)
        let pulled = ForeignEvent(id: UUID(), stream: stream, version: 3, type: "TodoCompleted",
                                  timestampMilliseconds: 1_800_000_000_000, origin: "another-device", data: Data("{}".utf8),
                                  upstreamPosition: 3)
        _ = try await t.store.log.ingest([pulled])
        let before = try t.fingerprint()
        await #expect(throws: ChronicleError.rejected(.overtaken(stream: stream, redo: false))) { try await t.store.undo() }
        #expect(try t.fingerprint() == before)
        #expect(try await t.store.todo(todo.id)?.title == "Pay the rent")
        await t.cleanup()
    }

    @Test("undoing a user's creation is refused once another device gave the user a todo")
    func userWithAnotherDevicesTodo() async throws {
        let t = try TemporaryStore()
        let ada = try await t.store.createUser(name: "Ada", age: 36)
        let theirs = UUID()
        let data = #"{"deadline":"2026-12-01","title":"Theirs","userId":"\#(ada.id.uuidString.lowercased())"}"#
        _ = try await t.store.log.ingest([ForeignEvent(id: UUID(), stream: TodoAppEvent.todoStream(theirs), version: 1, type: "TodoCreated",
                                                   timestampMilliseconds: 1_800_000_000_000, origin: "another-device",
                                                   data: Data(data.utf8), upstreamPosition: 2)])
        let before = try t.fingerprint()
        await #expect(throws: ChronicleError.rejected(.overtaken(stream: TodoAppEvent.todoStream(theirs), redo: false))) {
            try await t.store.undo()
        }
        #expect(try t.fingerprint() == before)
        await t.cleanup()
    }

    @Test("restoring a tag whose name another device's tag took since is refused, and appends nothing")
    func restoredNameTaken() async throws {
        let t = try TemporaryStore()
        let work = try await t.store.createTag(name: "Work", color: "#112233")
        try await t.store.deleteTag(work.id)
        let theirs = UUID()
        _ = try await t.store.log.ingest([ForeignEvent(id: UUID(), stream: TodoAppEvent.tagStream(theirs), version: 1, type: "TagCreated",
                                                   timestampMilliseconds: 1_800_000_000_000, origin: "another-device",
                                                   data: Data(##"{"color":"#000000","name":"work"}"##.utf8), upstreamPosition: 3)])
        let before = try t.fingerprint()
        await #expect(throws: ChronicleError.rejected(.duplicateTagName("Work"))) { try await t.store.undo() }
        #expect(try t.fingerprint() == before)
        #expect(try await t.store.tags().map(\.name) == ["work"])
        await t.cleanup()
    }

    @Test("the history is durable: a store opened again undoes and redoes the steps made before")
    func durable() async throws {
        let t = try TemporaryStore()
        let todo = try await t.store.createTodo(title: "Pay rent", deadline: "2026-12-01")
        try await t.store.completeTodo(todo.id)
        await t.store.close()
        let second = try ChronicleStore(directory: t.directory)
        #expect(second.canUndo && !second.canRedo)
        #expect(try await second.undo().map(\.type) == ["TodoReopened"])
        await second.close()
        let third = try ChronicleStore(directory: t.directory)
        #expect(third.canRedo)
        #expect(try await third.redo().map(\.type) == ["TodoCompleted"])
        #expect(try await third.todo(todo.id)?.isCompleted == true)
        await third.close()
        t.folder.remove()
    }
}

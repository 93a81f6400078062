import ChronicleSchema
import ChronicleTestSupport
import Foundation
import Testing
import ChronicleTodoDomain
import ChronicleTodoModel

/// The todo app's read models as its model's fold shows them: the events are the todo app's,
/// written as its typed events spell them, read by the model and folded in order.
struct TodoAppSnapshotTests {
    let ada = uuid(1)
    let bob = uuid(2)

    func fold(_ events: [TodoAppEvent]) -> TodoAppSnapshot {
        let reader = ChronicleModel.EventReader(TodoAppModel.model)
        var fold = ChronicleModel.Snapshot(TodoAppModel.model)
        for event in events {
            // Every event here is one the model reads.
            guard let read = try? reader.read(type: event.type, stream: event.stream, data: event.encodedData(),
                                              schemaVersion: Int(event.schemaVersion)) else {
                Issue.record("the model cannot read \(event)")
                continue
            }
            fold.apply(read)
        }
        return TodoAppSnapshot(fold)
    }

    @Test func startsEmpty() {
        let snapshot = TodoAppSnapshot(ChronicleModel.Snapshot(TodoAppModel.model))
        #expect(snapshot.users.isEmpty && snapshot.todos.isEmpty && snapshot.stats.isEmpty && snapshot.tags.isEmpty)
    }

    @Test func foldsUsersAndKeepsOnlyLiveOnes() {
        let snapshot = fold([
            .userCreated(id: ada, name: "Ada", age: 36),
            .userCreated(id: bob, name: "Bob", age: 40),
            .userUpdated(id: ada, name: nil, age: 37),
            .userDeleted(id: bob),
        ])
        #expect(snapshot.users == [User(id: ada, name: "Ada", age: 37)])
    }

    @Test func foldsTodosAndTheirStats() {
        let snapshot = fold([
            .todoCreated(id: uuid(10), title: "a", deadline: day("2026-03-01"), userId: ada, memo: nil),
            .todoCreated(id: uuid(11), title: "b", deadline: day("2026-03-01"), userId: nil, memo: "m"),
            .todoCreated(id: uuid(12), title: "c", deadline: day("2026-03-02"), userId: nil, memo: nil),
            .todoCompleted(id: uuid(10)),
            .todoUpdated(id: uuid(11), title: "B", deadline: nil, memo: nil),
        ])
        #expect(snapshot.todo(uuid(10))?.isCompleted == true)
        #expect(snapshot.todo(uuid(11)) == Todo(id: uuid(11), title: "B", deadline: day("2026-03-01"), memo: "m"))
        #expect(snapshot.stats == [
            DailyStat(date: day("2026-03-01"), total: 2, completed: 1),
            DailyStat(date: day("2026-03-02"), total: 1, completed: 0),
        ])
    }

    @Test func movingACompletedTodoMovesBothCountsAndDropsTheEmptiedDay() {
        let id = uuid(10)
        let snapshot = fold([
            .todoCreated(id: id, title: "a", deadline: day("2026-03-01"), userId: nil, memo: nil),
            .todoCompleted(id: id),
            .todoUpdated(id: id, title: nil, deadline: day("2026-03-05"), memo: nil),
        ])
        #expect(snapshot.stat(on: day("2026-03-01")) == nil)
        #expect(snapshot.stats == [DailyStat(date: day("2026-03-05"), total: 1, completed: 1)])
    }

    @Test func deletingTodosLowersCountsAndRemovesEmptyDays() {
        let snapshot = fold([
            .todoCreated(id: uuid(10), title: "a", deadline: day("2026-03-01"), userId: nil, memo: nil),
            .todoCreated(id: uuid(11), title: "b", deadline: day("2026-03-01"), userId: nil, memo: nil),
            .todoCreated(id: uuid(12), title: "c", deadline: day("2026-03-02"), userId: nil, memo: nil),
            .todoCompleted(id: uuid(10)),
            .todoCompleted(id: uuid(12)),
            .todoDeleted(id: uuid(10)),
            .todoDeleted(id: uuid(12)),
        ])
        #expect(Set(snapshot.todos.map(\.id)) == [uuid(11)])
        #expect(snapshot.stats == [DailyStat(date: day("2026-03-01"), total: 1, completed: 0)])
    }

    @Test func ignoresEventsThatDoNotApply() {
        let base: [TodoAppEvent] = [
            .userCreated(id: ada, name: "Ada", age: 36),
            .todoCreated(id: uuid(10), title: "a", deadline: day("2026-03-01"), userId: ada, memo: nil),
            .todoCompleted(id: uuid(10)),
        ]
        let expected = fold(base)
        let noise: [TodoAppEvent] = [
            .userCreated(id: ada, name: "Duplicate", age: 1),
            .userUpdated(id: bob, name: "Ghost", age: nil),
            .userDeleted(id: bob),
            .todoCreated(id: uuid(10), title: "dup", deadline: day("2027-01-01"), userId: nil, memo: nil),
            .todoUpdated(id: uuid(99), title: "x", deadline: day("2026-03-01"), memo: nil),
            .todoCompleted(id: uuid(10)),
            .todoCompleted(id: uuid(99)),
            .todoReopened(id: uuid(99)),
            .todoDeleted(id: uuid(99)),
        ]
        #expect(fold(base + noise) == expected)
        #expect(expected.stats == [DailyStat(date: day("2026-03-01"), total: 1, completed: 1)])
    }

    // MARK: - Tags

    let todo = uuid(10)
    let work = uuid(30)
    let home = uuid(31)
    var todoAndTwoTags: [TodoAppEvent] {
        [
            .todoCreated(id: todo, title: "a", deadline: day("2026-03-01"), userId: nil, memo: nil),
            .tagCreated(id: work, name: "Work", color: "#1a2b3c"),
            .tagCreated(id: home, name: "Home", color: "#000000"),
        ]
    }

    @Test func foldsTagsAndKeepsOnlyLiveOnes() {
        let snapshot = fold([
            .tagCreated(id: work, name: "Work", color: "#1a2b3c"),
            .tagCreated(id: home, name: "Home", color: "#000000"),
            .tagUpdated(id: work, name: nil, color: "#ffffff"),
            .tagUpdated(id: home, name: "House", color: nil),
            .tagDeleted(id: home),
        ])
        #expect(snapshot.tags == [Tag(id: work, name: "Work", color: "#ffffff")])
    }

    @Test func sortsTagsByFoldedShownName() {
        let upperSorting = UUID(uuidString: "F0000000-0000-4000-8000-000000000000")!
        let snapshot = fold([
            .tagCreated(id: upperSorting, name: "Work", color: "#000000"),
            .tagCreated(id: uuid(3), name: "work", color: "#000000"),
            .tagCreated(id: uuid(4), name: "zoo", color: "#000000"),
            .tagCreated(id: uuid(5), name: "Zebra", color: "#000000"),
            .tagCreated(id: uuid(6), name: "Straße", color: "#000000"),
            .tagCreated(id: uuid(7), name: "STRASSE", color: "#000000"),
            .tagCreated(id: uuid(8), name: "apple", color: "#000000"),
        ])
        // By plain `<` on names this would be 7, 6, F, 5, 8, 3, 4. Names that fold alike are
        // shown apart: the later with " (2)" (sorted as shown).
        #expect(snapshot.tags.map(\.id) == [uuid(8), uuid(6), uuid(7), upperSorting, uuid(3), uuid(5), uuid(4)])
        #expect(snapshot.tags.map(\.name) == ["apple", "Straße", "STRASSE (2)", "Work", "work (2)", "Zebra", "zoo"])
    }

    @Test func taggedTodosShowTheirLiveTagsSortedById() {
        let snapshot = fold(todoAndTwoTags + [
            .todoTagged(id: todo, tagId: work),
            .todoTagged(id: todo, tagId: home),
        ])
        #expect(snapshot.todo(todo)?.tags == [uuid(30), uuid(31)])
        #expect(snapshot.todo(todo)?.tags == Todo.sortedTagIDs([home, work]))
    }

    @Test func untaggingRemovesTheTag() {
        let snapshot = fold(todoAndTwoTags + [
            .todoTagged(id: todo, tagId: work),
            .todoTagged(id: todo, tagId: home),
            .todoUntagged(id: todo, tagId: work),
        ])
        #expect(snapshot.todo(todo)?.tags == [home])
    }

    @Test func deletingATagHidesItFromEveryTodo() {
        let other = uuid(11)
        let snapshot = fold(todoAndTwoTags + [
            .todoCreated(id: other, title: "b", deadline: day("2026-03-02"), userId: nil, memo: nil),
            .todoTagged(id: todo, tagId: work),
            .todoTagged(id: todo, tagId: home),
            .todoTagged(id: other, tagId: work),
            .tagDeleted(id: work),
        ])
        #expect(snapshot.todo(todo)?.tags == [home])
        #expect(snapshot.todo(other)?.tags == [])
        #expect(snapshot.tags.map(\.id) == [home])
    }

    /// A restored tag shows on its todos again; `tags` is always the live tags among those
    /// the todo was tagged with.
    @Test func aTagThatComesBackShowsOnItsTodosAgain() {
        var events = todoAndTwoTags + [.todoTagged(id: todo, tagId: work), .tagDeleted(id: work)]
        #expect(fold(events).todo(todo)?.tags == [])
        events.append(.tagCreated(id: work, name: "Work again", color: "#000000"))
        #expect(fold(events).todo(todo)?.tags == [], "an id is created once: a second creation changes nothing")
        events.append(.tagRestored(id: work))
        #expect(fold(events).todo(todo)?.tags == [work])
        #expect(fold(events).tag(work)?.name == "Work", "restored as it was deleted")
        // Tagged before the tag existed at all: it shows once the tag is created.
        events.append(.todoTagged(id: todo, tagId: uuid(40)))
        #expect(fold(events).todo(todo)?.tags == [work])
        events.append(.tagCreated(id: uuid(40), name: "Late", color: "#000000"))
        #expect(fold(events).todo(todo)?.tags == [work, uuid(40)])
    }

    @Test func aRestoredTodoComesBackWithItsFieldsAndTags() {
        var events = todoAndTwoTags + [
            .todoTagged(id: todo, tagId: work),
            .todoCompleted(id: todo),
            .todoDeleted(id: todo),
            .todoCreated(id: todo, title: "again", deadline: day("2026-03-09"), userId: nil, memo: nil),
            .todoUpdated(id: todo, title: "changed while deleted", deadline: nil, memo: nil),
        ]
        #expect(fold(events).todo(todo) == nil)
        #expect(fold(events).stats.isEmpty)
        let shownBefore = fold(todoAndTwoTags + [.todoTagged(id: todo, tagId: work), .todoCompleted(id: todo)]).todo(todo)
        events.append(.todoRestored(id: todo))
        let snapshot = fold(events)
        #expect(snapshot.todo(todo) == shownBefore)
        #expect(snapshot.todo(todo)?.tags == [work])
        #expect(snapshot.stats.map(\.completed) == [1])
    }

    @Test func aRestoredUserBringsBackTheTodosItsDeletionHid() {
        let ada = uuid(60), late = uuid(61)
        var events: [TodoAppEvent] = [
            .userCreated(id: ada, name: "Ada", age: 36),
            .userDeleted(id: ada),
            // another device's todo, created before it saw the deletion: not live
            .todoCreated(id: late, title: "late", deadline: day("2026-03-03"), userId: ada, memo: nil),
        ]
        #expect(fold(events).todo(late) == nil)
        events.append(.userRestored(id: ada))
        let snapshot = fold(events)
        #expect(snapshot.user(ada)?.name == "Ada")
        #expect(snapshot.todo(late)?.title == "late")
        #expect(snapshot.stats.map(\.total) == [1])
    }

    @Test func tagsNeverMoveStats() {
        let base = fold(todoAndTwoTags + [.todoCompleted(id: todo)])
        let tagged = fold(todoAndTwoTags + [
            .todoCompleted(id: todo),
            .todoTagged(id: todo, tagId: work),
            .todoTagged(id: todo, tagId: home),
            .tagUpdated(id: work, name: "Job", color: nil),
            .todoUntagged(id: todo, tagId: home),
            .tagDeleted(id: work),
        ])
        #expect(tagged.stats == base.stats)
        #expect(tagged.stats == [DailyStat(date: day("2026-03-01"), total: 1, completed: 1)])
    }

    @Test func otherTodoChangesKeepTheTags() {
        let snapshot = fold(todoAndTwoTags + [
            .todoTagged(id: todo, tagId: work),
            .todoUpdated(id: todo, title: "b", deadline: day("2026-04-01"), memo: "m"),
            .todoCompleted(id: todo),
        ])
        #expect(snapshot.todo(todo)?.tags == [work])
        #expect(snapshot.todo(todo)?.deadline == day("2026-04-01"))
    }

    @Test func ignoresTagEventsThatDoNotApply() {
        let base = todoAndTwoTags + [.todoTagged(id: todo, tagId: work)]
        let expected = fold(base)
        let noise: [TodoAppEvent] = [
            .tagCreated(id: work, name: "Duplicate", color: "#ffffff"),
            .tagUpdated(id: uuid(99), name: "Ghost", color: nil),
            .tagDeleted(id: uuid(99)),
            .todoTagged(id: uuid(98), tagId: work),
            .todoUntagged(id: uuid(98), tagId: work),
            .todoUntagged(id: todo, tagId: home),
            .todoTagged(id: todo, tagId: work),
        ]
        #expect(fold(base + noise) == expected)
        // Tagging a deleted todo does nothing either.
        let deleted = fold(base + [.todoDeleted(id: todo)])
        #expect(fold(base + [.todoDeleted(id: todo), .todoTagged(id: todo, tagId: home)]) == deleted)
    }

    @Test func sortsUsersByNameThenLowercaseId() {
        let upperSorting = UUID(uuidString: "F0000000-0000-4000-8000-000000000000")!
        let snapshot = fold([
            .userCreated(id: upperSorting, name: "Bob", age: 1),
            .userCreated(id: uuid(3), name: "Bob", age: 2),
            .userCreated(id: uuid(4), name: "Ada", age: 3),
            .userCreated(id: uuid(5), name: "bob", age: 4),
        ])
        #expect(snapshot.users.map(\.id) == [uuid(4), uuid(3), upperSorting, uuid(5)])
    }

    @Test func sortsTodosByDeadlineThenId() {
        let snapshot = fold([
            .todoCreated(id: uuid(3), title: "a", deadline: day("2026-03-02"), userId: nil, memo: nil),
            .todoCreated(id: uuid(2), title: "b", deadline: day("2026-03-02"), userId: nil, memo: nil),
            .todoCreated(id: uuid(1), title: "c", deadline: day("2026-12-01"), userId: nil, memo: nil),
            .todoCreated(id: uuid(9), title: "d", deadline: day("2025-01-01"), userId: nil, memo: nil),
        ])
        #expect(snapshot.todos.map(\.id) == [uuid(9), uuid(2), uuid(3), uuid(1)])
    }
}

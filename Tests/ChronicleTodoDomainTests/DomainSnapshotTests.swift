import ChronicleSchema
import ChronicleTestSupport
import Foundation
import Testing
import ChronicleTodoDomain

struct DomainSnapshotTests {
    let ada = uuid(1)
    let bob = uuid(2)

    func fold(_ events: [DomainEvent]) -> DomainSnapshot {
        var snapshot = DomainSnapshot()
        for event in events { snapshot.apply(event) }
        return snapshot
    }

    @Test func startsEmpty() {
        let snapshot = DomainSnapshot()
        #expect(snapshot.users.isEmpty && snapshot.todos.isEmpty && snapshot.stats.isEmpty && snapshot.tags.isEmpty)
        #expect(snapshot.sortedTags.isEmpty)
    }

    @Test func foldsUsersAndKeepsOnlyLiveOnes() {
        let snapshot = fold([
            .userCreated(id: ada, name: "Ada", age: 36),
            .userCreated(id: bob, name: "Bob", age: 40),
            .userUpdated(id: ada, name: nil, age: 37),
            .userDeleted(id: bob),
        ])
        #expect(snapshot.users == [ada: User(id: ada, name: "Ada", age: 37)])
    }

    @Test func foldsTodosAndTheirStats() {
        let snapshot = fold([
            .todoCreated(id: uuid(10), title: "a", deadline: day("2026-03-01"), userId: ada, memo: nil),
            .todoCreated(id: uuid(11), title: "b", deadline: day("2026-03-01"), userId: nil, memo: "m"),
            .todoCreated(id: uuid(12), title: "c", deadline: day("2026-03-02"), userId: nil, memo: nil),
            .todoCompleted(id: uuid(10)),
            .todoUpdated(id: uuid(11), title: "B", deadline: nil, memo: nil),
        ])
        #expect(snapshot.todos[uuid(10)]?.isCompleted == true)
        #expect(snapshot.todos[uuid(11)] == Todo(id: uuid(11), title: "B", deadline: day("2026-03-01"), memo: "m"))
        #expect(snapshot.sortedStats == [
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
        #expect(snapshot.stats[day("2026-03-01")] == nil)
        #expect(snapshot.sortedStats == [DailyStat(date: day("2026-03-05"), total: 1, completed: 1)])
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
        #expect(Set(snapshot.todos.keys) == [uuid(11)])
        #expect(snapshot.sortedStats == [DailyStat(date: day("2026-03-01"), total: 1, completed: 0)])
    }

    @Test func ignoresEventsThatDoNotApply() {
        let base: [DomainEvent] = [
            .userCreated(id: ada, name: "Ada", age: 36),
            .todoCreated(id: uuid(10), title: "a", deadline: day("2026-03-01"), userId: ada, memo: nil),
            .todoCompleted(id: uuid(10)),
        ]
        let expected = fold(base)
        let noise: [DomainEvent] = [
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
        #expect(expected.sortedStats == [DailyStat(date: day("2026-03-01"), total: 1, completed: 1)])
    }

    // MARK: - Tags

    let todo = uuid(10)
    let work = uuid(30)
    let home = uuid(31)
    var todoAndTwoTags: [DomainEvent] {
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
        #expect(snapshot.tags == [work: Tag(id: work, name: "Work", color: "#ffffff")])
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
        #expect(snapshot.sortedTags.map(\.id) == [uuid(8), uuid(6), uuid(7), upperSorting, uuid(3), uuid(5), uuid(4)])
        #expect(snapshot.sortedTags.map(\.name) == ["apple", "Straße", "STRASSE (2)", "Work", "work (2)", "Zebra", "zoo"])
    }

    @Test func taggedTodosShowTheirLiveTagsSortedById() {
        let snapshot = fold(todoAndTwoTags + [
            .todoTagged(id: todo, tagId: work),
            .todoTagged(id: todo, tagId: home),
        ])
        #expect(snapshot.todos[todo]?.tags == [uuid(30), uuid(31)])
        #expect(snapshot.todos[todo]?.tags == Todo.sortedTagIDs([home, work]))
    }

    @Test func untaggingRemovesTheTag() {
        let snapshot = fold(todoAndTwoTags + [
            .todoTagged(id: todo, tagId: work),
            .todoTagged(id: todo, tagId: home),
            .todoUntagged(id: todo, tagId: work),
        ])
        #expect(snapshot.todos[todo]?.tags == [home])
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
        #expect(snapshot.todos[todo]?.tags == [home])
        #expect(snapshot.todos[other]?.tags == [])
        #expect(snapshot.tags.keys.sorted { $0.uuidString < $1.uuidString } == [home])
    }

    /// A restored tag shows on its todos again; `tags` is always the live tags among those
    /// the todo was tagged with.
    @Test func aTagThatComesBackShowsOnItsTodosAgain() {
        var snapshot = fold(todoAndTwoTags + [.todoTagged(id: todo, tagId: work), .tagDeleted(id: work)])
        #expect(snapshot.todos[todo]?.tags == [])
        snapshot.apply(.tagCreated(id: work, name: "Work again", color: "#000000"))
        #expect(snapshot.todos[todo]?.tags == [], "an id is created once: a second creation changes nothing")
        snapshot.apply(.tagRestored(id: work))
        #expect(snapshot.todos[todo]?.tags == [work])
        #expect(snapshot.tags[work]?.name == "Work", "restored as it was deleted")
        // Tagged before the tag existed at all: it shows once the tag is created.
        snapshot.apply(.todoTagged(id: todo, tagId: uuid(40)))
        #expect(snapshot.todos[todo]?.tags == [work])
        snapshot.apply(.tagCreated(id: uuid(40), name: "Late", color: "#000000"))
        #expect(snapshot.todos[todo]?.tags == [work, uuid(40)])
    }

    @Test func aRestoredTodoComesBackWithItsFieldsAndTags() {
        var snapshot = fold(todoAndTwoTags + [
            .todoTagged(id: todo, tagId: work),
            .todoCompleted(id: todo),
            .todoDeleted(id: todo),
            .todoCreated(id: todo, title: "again", deadline: day("2026-03-09"), userId: nil, memo: nil),
            .todoUpdated(id: todo, title: "changed while deleted", deadline: nil, memo: nil),
        ])
        #expect(snapshot.todos[todo] == nil)
        #expect(snapshot.stats.isEmpty)
        let shownBefore = fold(todoAndTwoTags + [.todoTagged(id: todo, tagId: work), .todoCompleted(id: todo)]).todos[todo]
        snapshot.apply(.todoRestored(id: todo))
        #expect(snapshot.todos[todo] == shownBefore)
        #expect(snapshot.todos[todo]?.tags == [work])
        #expect(snapshot.sortedStats.map(\.completed) == [1])
    }

    @Test func aRestoredUserBringsBackTheTodosItsDeletionHid() {
        let ada = uuid(60), late = uuid(61)
        var snapshot = fold([
            .userCreated(id: ada, name: "Ada", age: 36),
            .userDeleted(id: ada),
            // another device's todo, created before it saw the deletion: not live
            .todoCreated(id: late, title: "late", deadline: day("2026-03-03"), userId: ada, memo: nil),
        ])
        #expect(snapshot.todos[late] == nil)
        snapshot.apply(.userRestored(id: ada))
        #expect(snapshot.users[ada]?.name == "Ada")
        #expect(snapshot.todos[late]?.title == "late")
        #expect(snapshot.sortedStats.map(\.total) == [1])
    }

    @Test func forgettingAStreamAndFoldingItAgainInAnotherOrderGivesThatOrdersResult() {
        let title1 = DomainEvent.todoUpdated(id: todo, title: "one", deadline: nil, memo: nil)
        let title2 = DomainEvent.todoUpdated(id: todo, title: "two", deadline: nil, memo: nil)
        var snapshot = fold(todoAndTwoTags + [title1, title2])
        #expect(snapshot.todos[todo]?.title == "two")
        snapshot.forget(stream: DomainEvent.todoStream(todo))
        #expect(snapshot.todos[todo] == nil)
        for event in todoAndTwoTags where event.entityID == todo { snapshot.apply(event) }
        snapshot.apply(title2)
        snapshot.apply(title1)
        #expect(snapshot.todos[todo]?.title == "one")
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
        #expect(tagged.sortedStats == [DailyStat(date: day("2026-03-01"), total: 1, completed: 1)])
    }

    @Test func otherTodoChangesKeepTheTags() {
        let snapshot = fold(todoAndTwoTags + [
            .todoTagged(id: todo, tagId: work),
            .todoUpdated(id: todo, title: "b", deadline: day("2026-04-01"), memo: "m"),
            .todoCompleted(id: todo),
        ])
        #expect(snapshot.todos[todo]?.tags == [work])
        #expect(snapshot.todos[todo]?.deadline == day("2026-04-01"))
    }

    @Test func ignoresTagEventsThatDoNotApply() {
        let base = todoAndTwoTags + [.todoTagged(id: todo, tagId: work)]
        let expected = fold(base)
        let noise: [DomainEvent] = [
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
        #expect(snapshot.sortedUsers.map(\.id) == [uuid(4), uuid(3), upperSorting, uuid(5)])
    }

    @Test func sortsTodosByDeadlineThenId() {
        let snapshot = fold([
            .todoCreated(id: uuid(3), title: "a", deadline: day("2026-03-02"), userId: nil, memo: nil),
            .todoCreated(id: uuid(2), title: "b", deadline: day("2026-03-02"), userId: nil, memo: nil),
            .todoCreated(id: uuid(1), title: "c", deadline: day("2026-12-01"), userId: nil, memo: nil),
            .todoCreated(id: uuid(9), title: "d", deadline: day("2025-01-01"), userId: nil, memo: nil),
        ])
        #expect(snapshot.sortedTodos.map(\.id) == [uuid(9), uuid(2), uuid(3), uuid(1)])
    }

    /// Drives random commands through the todo app's model in memory (``TodoAppMemory``) and
    /// checks the folded snapshot against the model's own fold of the same events: the shown
    /// users, todos (with their shown tags) and tags, and stats counted from scratch from the
    /// shown todos.
    @Test func matchesAModelRebuiltFromScratchUnderRandomCommands() throws {
        var random = TestSeed.generator(for: "DomainSnapshotTests.randomCommands")
        var memory = TodoAppMemory()
        var snapshot = DomainSnapshot()
        var rejected = 0
        var userIDs: [UUID] = [], todoIDs: [UUID] = [], tagIDs: [UUID] = []
        let days = (0..<6).map { day("2026-03-01").adding(days: $0) }
        func run(_ entity: String, _ id: UUID, _ action: ChronicleModel.Command.Action) throws {
            for event in try memory.decide(entity, id, action) {
                switch event {
                case .userCreated(let id, _, _): userIDs.append(id)
                case .todoCreated(let id, _, _, _, _): todoIDs.append(id)
                case .tagCreated(let id, _, _): tagIDs.append(id)
                default: break
                }
                snapshot.apply(event)
            }
        }

        for step in 0..<3_000 {
            let anyUser = userIDs.randomElement(using: &random) ?? uuid(1)
            let anyTodo = todoIDs.randomElement(using: &random) ?? uuid(2)
            let anyTag = tagIDs.randomElement(using: &random) ?? uuid(3)
            let deadline = days.randomElement(using: &random)!.description
            let tagName = ["g\(step % 9)", "G\(step % 9)", "Straße", "STRASSE", "σας", "ΣΑΣ"]
                .randomElement(using: &random)!
            do {
                switch Int.random(in: 0..<14, using: &random) {
                case 0: try run("User", uuid(100_000 + step), .create(["name": .text("u\(step % 7)"), "age": .integer(step % 151)]))
                case 1: try run("User", anyUser, .update(["name": .text("v\(step % 5)")]))
                case 2 where step % 3 == 0: try run("User", anyUser, .delete)
                case 3, 4:
                    var values: [String: ChronicleModel.FieldValue] = ["title": .text("t\(step)"), "deadline": .text(deadline)]
                    if Bool.random(using: &random) { values["userId"] = .text(anyUser.uuidString.lowercased()) }
                    try run("Todo", uuid(200_000 + step), .create(values))
                case 5: try run("Todo", anyTodo, .update(["deadline": .text(deadline)]))
                case 6, 7: try run("Todo", anyTodo, .update(["isCompleted": .boolean(true)]))
                case 8: try run("Todo", anyTodo, .update(["isCompleted": .boolean(false)]))
                case 10: try run("Tag", uuid(300_000 + step), .create(["name": .text(tagName), "color": .text("#00aa00")]))
                case 11 where step % 4 == 0: try run("Tag", anyTag, .delete)
                case 11: try run("Tag", anyTag, .update(["name": .text(tagName)]))
                case 12: try run("Todo", anyTodo, .add(field: "tags", member: anyTag))
                case 13: try run("Todo", anyTodo, .remove(field: "tags", member: anyTag))
                default: try run("Todo", anyTodo, .delete)
                }
            } catch {
                rejected += 1
            }
        }

        // Whatever the draw, a live todo ends holding a deleted tag, which its shown form leaves
        // out (CHRONICLE_SEED=0x7059cb95eb9b0e5a drew none).
        func holdsDeletedTag(_ todo: UUID, in fold: ChronicleModel.Snapshot) -> Bool {
            fold.state(of: "Todo", id: todo)?.members(of: "tags").contains { fold.state(of: "Tag", id: $0)?.isDeleted == true } == true
        }
        let fold = memory.memory.snapshot
        if !fold.shown("Todo").contains(where: { holdsDeletedTag($0.id, in: fold) }),
           let todo = snapshot.todos.keys.min(by: { $0.uuidString < $1.uuidString }),
           let tag = snapshot.tags.keys.min(by: { $0.uuidString < $1.uuidString }) {
            if fold.state(of: "Todo", id: todo)?.members(of: "tags").contains(tag) != true {
                try run("Todo", todo, .add(field: "tags", member: tag))
            }
            try run("Tag", tag, .delete)
        }

        let model = memory.memory.snapshot
        let liveUsers = model.shown("User").compactMap(User.init)
        let liveTags = model.shown("Tag").compactMap(Tag.init)
        let liveTagIDs = Set(liveTags.map(\.id))
        let liveTodos = model.shown("Todo").compactMap { Todo($0, isShownTag: liveTagIDs.contains) }
        #expect(snapshot.users == Dictionary(uniqueKeysWithValues: liveUsers.map { ($0.id, $0) }))
        #expect(snapshot.tags == Dictionary(uniqueKeysWithValues: liveTags.map { ($0.id, $0) }))
        // The commands kept names unique among live tags, whatever their case.
        #expect(Set(liveTags.map { Tag.foldedName($0.name) }).count == liveTags.count)
        #expect(snapshot.todos == Dictionary(uniqueKeysWithValues: liveTodos.map { ($0.id, $0) }))
        var expectedStats: [CalendarDay: DailyStat] = [:]
        for todo in liveTodos {
            var stat = expectedStats[todo.deadline] ?? DailyStat(date: todo.deadline, total: 0, completed: 0)
            stat.total += 1
            stat.completed += todo.isCompleted ? 1 : 0
            expectedStats[todo.deadline] = stat
        }
        #expect(snapshot.stats == expectedStats)
        #expect(snapshot.stats.values.allSatisfy { $0.total > 0 })
        // No todo may outlive its owner: the cascade must have removed them.
        #expect(liveTodos.allSatisfy { todo in todo.userId.map { snapshot.users[$0] != nil } ?? true })
        #expect(!liveTodos.isEmpty && liveUsers.count > 5 && rejected > 100)
        // Tags must have been exercised: some shown, some hidden by deletion.
        #expect(liveTags.count > 1 && model.states(of: "Tag").contains(where: \.isDeleted))
        #expect(liveTodos.contains { !$0.tags.isEmpty })
        #expect(model.shown("Todo").contains { holdsDeletedTag($0.id, in: model) })
    }
}

import Foundation
import Testing
import Domain

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
        #expect(snapshot.users.isEmpty && snapshot.todos.isEmpty && snapshot.stats.isEmpty)
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

    /// Drives random commands through the deciders and checks the folded
    /// snapshot against the obvious model: live entities from the aggregates,
    /// stats counted from scratch from the live todos.
    @Test func matchesAModelRebuiltFromScratchUnderRandomCommands() throws {
        var random = SeededGenerator(seed: 0x5EED_0F_57A75)
        var userAggregates: [UUID: UserAggregate] = [:]
        var todoAggregates: [UUID: TodoAggregate] = [:]
        var snapshot = DomainSnapshot()
        var rejected = 0
        var userIDs: [UUID] = []
        var todoIDs: [UUID] = []
        let days = (0..<6).map { day("2026-03-01").adding(days: $0) }
        func apply(_ event: DomainEvent) {
            if event.stream.hasPrefix("user-") {
                if userAggregates[event.entityID] == nil { userIDs.append(event.entityID) }
                userAggregates[event.entityID, default: UserAggregate()].apply(event)
            } else {
                if todoAggregates[event.entityID] == nil { todoIDs.append(event.entityID) }
                todoAggregates[event.entityID, default: TodoAggregate()].apply(event)
            }
            snapshot.apply(event)
        }

        for step in 0..<3_000 {
            let anyUser = userIDs.randomElement(using: &random) ?? uuid(1)
            let anyTodo = todoIDs.randomElement(using: &random) ?? uuid(2)
            let deadline = days.randomElement(using: &random)!.description
            do {
                switch Int.random(in: 0..<10, using: &random) {
                case 0:
                    apply(try UserCommands.create(id: uuid(100_000 + step), name: "u\(step % 7)", age: step % 151))
                case 1:
                    apply(try UserCommands.update(userAggregates[anyUser] ?? UserAggregate(), id: anyUser,
                                                  name: "v\(step % 5)", age: nil))
                case 2 where step % 3 == 0:
                    let owned = snapshot.todos.values.filter { $0.userId == anyUser }
                    for event in try UserCommands.delete(userAggregates[anyUser] ?? UserAggregate(),
                                                         id: anyUser, liveTodosOfUser: Array(owned)) {
                        apply(event)
                    }
                case 3, 4:
                    let owner: UUID? = Bool.random(using: &random) ? anyUser : nil
                    apply(try TodoCommands.create(id: uuid(200_000 + step), title: "t\(step)", deadline: deadline,
                                                  userId: owner, owner: owner.flatMap { userAggregates[$0] }, memo: nil))
                case 5:
                    apply(try TodoCommands.update(todoAggregates[anyTodo] ?? TodoAggregate(), id: anyTodo,
                                                  title: nil, deadline: deadline, memo: nil))
                case 6, 7:
                    apply(try TodoCommands.complete(todoAggregates[anyTodo] ?? TodoAggregate(), id: anyTodo))
                case 8:
                    apply(try TodoCommands.reopen(todoAggregates[anyTodo] ?? TodoAggregate(), id: anyTodo))
                default:
                    apply(try TodoCommands.delete(todoAggregates[anyTodo] ?? TodoAggregate(), id: anyTodo))
                }
            } catch {
                rejected += 1
            }
        }

        let liveUsers = userAggregates.values.filter(\.isLive).compactMap(\.user)
        let liveTodos = todoAggregates.values.filter(\.isLive).compactMap(\.todo)
        #expect(snapshot.users == Dictionary(uniqueKeysWithValues: liveUsers.map { ($0.id, $0) }))
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
    }
}

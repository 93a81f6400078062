import Domain
import EventLog
import Foundation
@testable import Projections
import Testing

@Suite("daily stats follow deadlines, completion and deletion", .timeLimit(.minutes(3)))
struct DailyStatsTests {
    @Test("moving a deadline changes both days; completed todos move their completed count too")
    func movingDeadlines() async throws {
        try await withStore { store in
            let (monday, tuesday) = (day("2026-03-02"), day("2026-03-03"))
            let open = UUID(), done = UUID()
            try await store.append([.todoCreated(id: open, title: "Open", deadline: monday, userId: nil, memo: nil)])
            try await store.append([.todoCreated(id: done, title: "Done", deadline: monday, userId: nil, memo: nil)])
            try await store.append([.todoCompleted(id: done)])
            try await store.runner.catchUp()
            #expect(try store.models.stats() == [DailyStat(date: monday, total: 2, completed: 1)])

            try await store.append([.todoUpdated(id: open, title: nil, deadline: tuesday, memo: nil)])
            try await store.runner.catchUp()
            #expect(try store.models.stats() == [DailyStat(date: monday, total: 1, completed: 1),
                                                 DailyStat(date: tuesday, total: 1, completed: 0)])

            try await store.append([.todoUpdated(id: done, title: nil, deadline: tuesday, memo: nil)])
            try await store.runner.catchUp()
            #expect(try store.models.stats() == [DailyStat(date: tuesday, total: 2, completed: 1)],
                    "the emptied day is gone, the completed count moved with the todo")
            #expect(try store.models.todos(on: monday).isEmpty)
            #expect(try store.models.todos(on: tuesday).map(\.id).sorted { $0.uuidString < $1.uuidString }
                    == [open, done].sorted { $0.uuidString < $1.uuidString })
        }
    }

    @Test("deleting a completed todo lowers both counts of its day")
    func deletingCompleted() async throws {
        try await withStore { store in
            let friday = day("2026-03-06")
            let a = UUID(), b = UUID()
            try await store.append([.todoCreated(id: a, title: "A", deadline: friday, userId: nil, memo: nil)])
            try await store.append([.todoCreated(id: b, title: "B", deadline: friday, userId: nil, memo: "m")])
            try await store.append([.todoCompleted(id: a)])
            try await store.append([.todoCompleted(id: b)])
            try await store.runner.catchUp()
            #expect(try store.models.stats() == [DailyStat(date: friday, total: 2, completed: 2)])

            try await store.append([.todoDeleted(id: a)])
            try await store.runner.catchUp()
            #expect(try store.models.stats() == [DailyStat(date: friday, total: 1, completed: 1)])
            #expect(try store.models.todo(a) == nil)

            try await store.append([.todoReopened(id: b)])
            try await store.append([.todoDeleted(id: b)])
            try await store.runner.catchUp()
            #expect(try store.models.stats().isEmpty, "stats list only days with total > 0")
        }
    }

    @Test("a user's cascade delete empties that user's days and leaves other users' todos")
    func cascadeDelete() async throws {
        try await withStore { store in
            let (d3, d4) = (day("2026-03-03"), day("2026-03-04"))
            let ada = UUID(), bob = UUID()
            var adaAggregate = UserAggregate()
            let created = try UserCommands.create(id: ada, name: "Ada", age: 36)
            adaAggregate.apply(created)
            try await store.append([created])
            try await store.append([.userCreated(id: bob, name: "Bob", age: 40)])
            let t1 = Todo(id: UUID(), title: "one", deadline: d3, userId: ada)
            let t2 = Todo(id: UUID(), title: "two", deadline: d4, userId: ada)
            let t3 = Todo(id: UUID(), title: "bob's", deadline: d4, userId: bob)
            for todo in [t1, t2, t3] {
                try await store.append([.todoCreated(id: todo.id, title: todo.title, deadline: todo.deadline,
                                                     userId: todo.userId, memo: nil)])
            }
            try await store.append([.todoCompleted(id: t2.id)])
            try await store.runner.catchUp()
            #expect(try store.models.stats() == [DailyStat(date: d3, total: 1, completed: 0),
                                                 DailyStat(date: d4, total: 2, completed: 1)])
            #expect(try store.models.todos(user: ada).map(\.id) == [t1.id, t2.id])

            let cascade = try UserCommands.delete(adaAggregate, id: ada, liveTodosOfUser: try store.models.todos(user: ada))
            #expect(cascade.count == 3)
            try await store.append(cascade)
            try await store.runner.catchUp()
            #expect(try store.models.stats() == [DailyStat(date: d4, total: 1, completed: 0)])
            #expect(try store.models.todos(user: ada).isEmpty)
            #expect(try store.models.todos(on: d4, user: bob).map(\.id) == [t3.id])
            #expect(try store.models.users().map(\.name) == ["Bob"])
            #expect(try ModelVerifier.problems(log: store.log, models: store.models, deep: true).isEmpty)
        }
    }
}

import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleLMDB
@testable import ChronicleProjections
import Testing

@Suite("daily stats follow deadlines, completion and deletion", .timeLimit(.minutes(10)))
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
            try await store.append([.userCreated(id: ada, name: "Ada", age: 36)])
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

            // The cascade the user's deletion appends: the user, then each of the user's live todos.
            let cascade: [DomainEvent] = [.userDeleted(id: ada)] + (try store.models.todos(user: ada)).map { .todoDeleted(id: $0.id) }
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

    @Test("rebuilding daily stats alone rebuilds them with the todos they are counted from, and restores lost counts")
    func rebuildDailyStatsAlone() async throws {
        try await withStore { store in
            var workload = Workload(test: "DailyStatsTests.1")
            var reference = ReferenceModels()
            try await store.append(300, from: &workload, into: &reference)
            try await store.runner.catchUp()
            let before = try store.contents()
            let first = try #require(reference.stats.first)
            // Lose a day's counts, as a damaged or hand-edited model would.
            var key: [UInt8] = []
            key.appendBigEndian(ModelCodec.dayKey(first.date))
            let deleted = try store.models.write { txn in try txn.delete(try store.models.active(.dailyStats, txn)[0], key: key) }
            #expect(deleted)
            #expect(try store.models.stats().first != first)

            let summary = try await Rebuild.run(log: store.log, models: store.models, projections: [.dailyStats])
            #expect(summary.projections == [.todos, .dailyStats])
            #expect(summary.entries[.dailyStats] == reference.stats.count)
            #expect(summary.entries[.todos] == reference.todos.count)
            #expect(try store.models.stats() == reference.stats)
            #expect(try store.contents() == before)
            // The daily-stats model is the todos' counts database, named as such.
            let counts = try store.models.contents(of: .dailyStats)
            #expect(Array(counts.keys) == [TodosProjection.dailyStatsDatabase])
            #expect(counts[TodosProjection.dailyStatsDatabase] == before[TodosProjection.dailyStatsDatabase])
            #expect(counts[TodosProjection.dailyStatsDatabase]?.count == 2 * reference.stats.count)
            #expect(try store.models.status().map(\.generation) == [1, 2, 2, 1, 1])
        }
    }

    @Test("a store of an earlier version, whose daily stats kept a copy of every todo: opening it empties those databases and forgets their state")
    func olderDailyStatsDatabasesEmptied() async throws {
        let directory = try TemporaryFolder("legacy-daily-stats").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let models = directory + "/models"
        // What version 3 of the daily-stats projection left in the models: its state and its databases.
        do {
            let environment = try Environment(path: models, options: .init(mapSize: 1 << 20, maxDatabases: 64, noSync: true))
            try environment.write { txn in
                let meta = try txn.openDatabase(named: "meta")
                try txn.put(meta, key: Array("state/daily-stats".utf8), value: [UInt8](repeating: 0, count: ProjectionState.size))
                try txn.put(meta, key: Array("build/daily-stats".utf8), value: [1])
                for base in ["daily-stats", "daily-stats.todos", "daily-stats.by-user"] {
                    let db = try txn.openDatabase(named: base + ".blue")
                    try txn.put(db, key: Array(UUID().uuidString.utf8), value: [1, 2, 3])
                }
            }
        }
        let opened = try ReadModels(path: models, options: .init(noSync: true))
        try opened.read { txn in
            let meta = try txn.openDatabase(named: "meta", create: false)
            #expect(try txn.get(meta, key: Array("state/daily-stats".utf8)) == nil)
            #expect(try txn.get(meta, key: Array("build/daily-stats".utf8)) == nil)
            for base in ["daily-stats", "daily-stats.todos", "daily-stats.by-user"] {
                #expect(try txn.count(try txn.openDatabase(named: base + ".blue", create: false)) == 0, "\(base)")
            }
        }
        #expect(try opened.stats().isEmpty)
        #expect(try opened.status().map(\.name) == ProjectionName.allCases)
    }
}

import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing

@Suite("read model queries", .timeLimit(.minutes(10)))
struct ReadModelsTests {
    @Test("users list by name as Swift orders strings (accents in either spelling), then id; renames move them")
    func usersByName() async throws {
        try await withStore { store in
            let names = ["Émile", "Zoë", "ada", "Ada", "E\u{301}mile", "Bob", "Bo", "李", "A\u{0}b", "A"]
            var reference = ReferenceModels()
            for name in names {
                let event = DomainEvent.userCreated(id: UUID(), name: name, age: 30)
                try await store.append([event])
                reference.apply(event)
            }
            try await store.runner.catchUp()
            #expect(try store.models.users() == reference.sortedUsers)
            let bob = try #require(reference.users.values.first { $0.name == "Bob" })
            let rename = DomainEvent.userUpdated(id: bob.id, name: "Aaron", age: nil)
            let birthday = DomainEvent.userUpdated(id: bob.id, name: nil, age: 31)
            try await store.append([rename])
            try await store.append([birthday])
            reference.apply(rename)
            reference.apply(birthday)
            try await store.runner.catchUp()
            #expect(try store.models.users() == reference.sortedUsers)
            #expect(try store.models.user(bob.id) == User(id: bob.id, name: "Aaron", age: 31))
            #expect(try store.models.user(UUID()) == nil)
        }
    }

    @Test("names longer than an LMDB key, and names Swift orders oddly, still list in one total order")
    func longAndOddNames() async throws {
        try await withStore { store in
            let emoji = String(repeating: "👩‍👩‍👧‍👦", count: 200)          // 200 characters, 5,000 bytes
            let accents = String(repeating: "e\u{301}", count: 250)         // NFC: 500 bytes
            let names = [emoji + "b", emoji + "a", emoji, String(emoji.prefix(30)), accents, accents + "x",
                         "\u{212B}", "\u{C5}z", "\u{1100}\u{1161}", "\u{AC00}\u{301}", "Ada"]
            var ids: [UUID] = []
            for name in names {
                let id = UUID()
                ids.append(id)
                try await store.append([.userCreated(id: id, name: name, age: 1)])
            }
            try await store.runner.catchUp()
            let expected = zip(names, ids).map { User(id: $1, name: $0, age: 1) }
                .sorted { ModelCodec.nameOrder($0.name, id: $0.id).lexicographicallyPrecedes(ModelCodec.nameOrder($1.name, id: $1.id)) }
            let listed = try store.models.users()
            #expect(listed.map(\.id) == expected.map(\.id))
            #expect(listed.first { $0.id == ids[0] }?.name.utf8.count == emoji.utf8.count + 1, "full names are stored")
            #expect(try ModelVerifier.problems(log: store.log, models: store.models, deep: true).isEmpty)
            let incremental = try store.contents()
            _ = try await Rebuild.run(log: store.log, models: store.models)
            #expect(try store.contents() == incremental)
            // Renaming a long name moves its index entry.
            try await store.append([.userUpdated(id: ids[0], name: "Aaa", age: nil)])
            try await store.runner.catchUp()
            #expect(try store.models.users().first?.id == ids[0])
        }
    }

    @Test("todos by deadline then id, per day, per user, per day and user; stats ranges include both ends")
    func todosAndStats() async throws {
        try await withStore { store in
            let ada = UUID(), bob = UUID()
            var reference = ReferenceModels()
            var generator = TestSeed.generator(for: "ReadModelsTests.todosAndStats")
            for index in 0..<60 {
                let owner: UUID? = [ada, bob, nil][index % 3]
                let deadline = day("2026-12-28").adding(days: Int.random(in: 0..<10, using: &generator))
                let event = DomainEvent.todoCreated(id: UUID(), title: "t\(index)", deadline: deadline, userId: owner,
                                                    memo: index % 4 == 0 ? "" : nil)
                try await store.append([event])
                reference.apply(event)
            }
            try await store.runner.catchUp()
            try expectEqual(store.models, reference)
            #expect(try store.models.todos(on: day("2025-01-01")).isEmpty)
            #expect(try store.models.todos(user: UUID()).isEmpty)
            let all = reference.stats
            #expect(try store.models.stats(from: all[2].date, to: all[5].date) == Array(all[2...5]))
            #expect(try store.models.stats(from: all[3].date) == Array(all[3...]))
            #expect(try store.models.stats(to: all[1].date) == Array(all[...1]))
            #expect(try store.models.stats(from: all[5].date, to: all[2].date).isEmpty)
            #expect(try store.models.todos().allSatisfy { $0.memo == nil }, "an empty memo is no memo")
        }
    }

    @Test("a new store starts every projection at version, generation 1 and position 0")
    func freshStatus() async throws {
        try await withStore { store in
            let status = try store.models.status()
            #expect(status.map(\.name) == ProjectionName.allCases)
            #expect(status.allSatisfy { $0.checkpoint == 0 && $0.generation == 1 && !$0.needsRebuild && $0.entries == 0 })
            #expect(try await store.runner.catchUp() == 0)
            #expect(try store.models.users().isEmpty && store.models.todos().isEmpty && store.models.stats().isEmpty)
        }
    }
}

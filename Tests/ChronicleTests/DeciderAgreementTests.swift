@_spi(Operator) import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

/// The model's generic decider beside the todo app's typed commands: random commands, valid and
/// not, run on two stores, one through `ChronicleStore`'s methods (the app's own input checks,
/// then the model deciding on the stored entities), one through ``ChronicleModel/Decider`` on a
/// replay of the log. Both must accept and refuse the same commands, append the same events
/// and end up showing the same users, todos, tags and stats (ids mapped).
@Suite("the model's decider agrees with the todo app's commands", .timeLimit(.minutes(5)))
struct DeciderAgreementTests {
    /// The same entity in both stores.
    struct Pair {
        var own: UUID
        var generic: UUID
    }

    @Test("400 random commands on two stores: the same ones refused, the same models shown", arguments: 1...4)
    func randomCommandsAgree(run: Int) async throws {
        let name = "DeciderAgreementTests.randomCommandsAgree.\(run)"
        print("\(name): seed 0x\(String(TestSeed.seed(for: name), radix: 16)) (replay the run: \(TestSeed.replay))")
        var random = TestSeed.generator(for: name)
        let own = try TemporaryStore(), generic = try TemporaryStore()
        var users: [Pair] = [], todos: [Pair] = [], tags: [Pair] = []
        var disagreements: [String] = []
        var refused = 0
        for step in 1...400 {
            let command = RandomTodoCommand.random(&random, users: users.count, todos: todos.count, tags: tags.count)
            let ownResult = await command.run(on: own.store, users: users.map(\.own), todos: todos.map(\.own), tags: tags.map(\.own))
            let genericResult = await command.run(decidingOn: generic.store, users: users.map(\.generic), todos: todos.map(\.generic),
                                                  tags: tags.map(\.generic))
            switch (ownResult, genericResult) {
            case (.success(let a), .success(let b)):
                if let a, let b {
                    switch command.creates {
                    case .user: users.append(Pair(own: a, generic: b))
                    case .todo: todos.append(Pair(own: a, generic: b))
                    case .tag: tags.append(Pair(own: a, generic: b))
                    case nil: break
                    }
                }
            case (.failure, .failure):
                refused += 1
            case (.success, .failure(let why)):
                disagreements.append("step \(step) \(command): the todo app accepts it, the decider refuses: \(why)")
            case (.failure(let why), .success):
                disagreements.append("step \(step) \(command): the decider accepts it, the todo app refuses: \(why)")
            }
            if !disagreements.isEmpty { break }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        let ownShown = try await Shown(own.store, users: users.map(\.own), todos: todos.map(\.own), tags: tags.map(\.own))
        let genericShown = try await Shown(generic.store, users: users.map(\.generic), todos: todos.map(\.generic), tags: tags.map(\.generic))
        #expect(ownShown == genericShown)
        let ownLog = try Logged(own.store, users: users.map(\.own), todos: todos.map(\.own), tags: tags.map(\.own))
        let genericLog = try Logged(generic.store, users: users.map(\.generic), todos: todos.map(\.generic), tags: tags.map(\.generic))
        let firstDifference = zip(ownLog.lines, genericLog.lines).first { $0 != $1 }.map { "\($0)\n\($1)" } ?? "in length"
        #expect(ownLog == genericLog, "the logs differ: \(firstDifference)")
        print("\(name): \(users.count) users, \(todos.count) todos, \(tags.count) tags created; \(refused) commands refused by both")
        #expect(refused > 20 && todos.count > 5, "the random commands must exercise both sides")
        await own.cleanup()
        await generic.cleanup()
    }

    /// What a store shows, its ids replaced by the index of their entity's creation.
    struct Shown: Equatable, CustomStringConvertible {
        var lines: [String]

        init(_ store: ChronicleStore, users: [UUID], todos: [UUID], tags: [UUID]) async throws {
            try await store.refresh()
            func index(_ id: UUID?, _ pool: [UUID], _ prefix: String) -> String {
                guard let id else { return "-" }
                return pool.firstIndex(of: id).map { "\(prefix)\($0)" } ?? "?"
            }
            var lines = try await store.users().map { "user \(index($0.id, users, "u")) \($0.name) \($0.age)" }
            lines += try await store.todos().map { todo in
                "todo \(index(todo.id, todos, "t")) \(todo.title) \(todo.deadline) \(index(todo.userId, users, "u")) \(todo.memo ?? "-") "
                    + "\(todo.isCompleted) [\(todo.tags.map { index($0, tags, "g") }.sorted().joined(separator: ","))]"
            }
            lines += try await store.tags().map { "tag \(index($0.id, tags, "g")) \($0.name) \($0.color)" }
            lines += try await store.stats().map { "stat \($0.date) \($0.total) \($0.completed)" }
            self.lines = lines.sorted()
        }

        var description: String { lines.joined(separator: "\n") }
    }

    /// The events a store appended, one line each (type, schema version, stream, data as
    /// stored), its ids replaced by the index of their entity's creation.
    struct Logged: Equatable {
        var lines: [String]

        init(_ store: ChronicleStore, users: [UUID], todos: [UUID], tags: [UUID]) throws {
            var names: [String: String] = [:]
            for (prefix, pool) in [("u", users), ("t", todos), ("g", tags)] {
                for (index, id) in pool.enumerated() { names[id.uuidString.lowercased()] = "\(prefix)\(index)" }
            }
            func named(_ text: String) -> String {
                var text = text
                for (id, name) in names where text.contains(id) { text = text.replacingOccurrences(of: id, with: name) }
                return text
            }
            let logged = try store.log.read(limit: .max).map { event in
                named("\(event.type) v\(event.schemaVersion) \(event.stream) \(String(decoding: event.data, as: UTF8.self))")
            }
            // A user's deletion deletes the user's todos in the order of their ids, which differ
            // between the stores: each run of deletions is compared as a set.
            lines = []
            var run: [String] = []
            for line in logged + [""] {
                if line.hasPrefix("TodoDeleted ") { run.append(line); continue }
                lines += run.sorted()
                run = []
                if !line.isEmpty { lines.append(line) }
            }
        }
    }
}

@_spi(Operator) import Chronicle
import ChronicleReferee
import ChronicleRefereeSupport
import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleProjections
import Testing

/// Random concurrent commands against one store: the invariants that span entities hold
/// after every step, whatever the interleaving (SPEC §6).
@Suite("decisions under concurrency, in one process", .timeLimit(.minutes(10)))
struct DecisionPropertyTests {
    /// A new seed each run (``TestSeed``; `CHRONICLE_SEED` replays a run).
    static let seed = TestSeed.seed(for: "DecisionPropertyTests.invariantsAfterEveryStep")

    @Test("4 tasks at a time, 150 steps of random commands: unique tag names, no todo of a deleted user, stats = live todos",
          .timeLimit(.minutes(5)))
    func invariantsAfterEveryStep() async throws {
        let t = try TemporaryStore()
        var random = TestSeed.generator(for: "DecisionPropertyTests.invariantsAfterEveryStep")
        var users: [UUID] = [], todos: [UUID] = [], tags: [UUID] = []
        for step in 0..<150 {
            let commands = (0..<4).map { _ in Command.random(&random, users: users, todos: todos, tags: tags) }
            let created = try await withThrowingTaskGroup(of: Created?.self) { group in
                for command in commands { group.addTask { try await command.run(on: t.store) } }
                return try await group.reduce(into: [Created]()) { all, one in if let one { all.append(one) } }
            }
            for item in created {
                switch item {
                case .user(let id): users.append(id)
                case .todo(let id): todos.append(id)
                case .tag(let id): tags.append(id)
                }
            }
            try await t.store.refresh()
            var broken = try await Self.brokenInvariants(t.store)
            broken += try await RefereeState.shown(by: t.store)
                .differences(from: try RefereeState.fold(log: t.store.log), device: "the store")
            #expect(broken.isEmpty, "seed 0x\(String(Self.seed, radix: 16)) (\(TestSeed.replay)), step \(step) after \(commands): \(broken)")
            if !broken.isEmpty { break }
        }
        print("coverage: seeds 1, steps 150, devices 1, events \(try t.store.log.head()), concurrent operations 4")
        #expect(try ModelStatesVerifier.problems(path: t.store.directory + "/entities", model: t.store.model, log: t.store.log,
                                                 deep: true).isEmpty, "seed 0x\(String(Self.seed, radix: 16)) (\(TestSeed.replay))")
        await t.cleanup()
    }

    /// What is wrong with the store's read models, one line each.
    static func brokenInvariants(_ store: ChronicleStore) async throws -> [String] {
        var broken: [String] = []
        let liveUsers = Set(try await store.users().map(\.id))
        let liveTags = try await store.tags()
        let tagIDs = Set(liveTags.map(\.id))
        let todos = try await store.todos()
        let folded = liveTags.map { ChronicleTodoDomain.Tag.foldedName($0.name) }
        if Set(folded).count != folded.count { broken.append("two live tags share a name: \(liveTags.map(\.name))") }
        for todo in todos {
            if let owner = todo.userId, !liveUsers.contains(owner) { broken.append("todo \(todo.id) belongs to deleted user \(owner)") }
            if !Set(todo.tags).isSubset(of: tagIDs) { broken.append("todo \(todo.id) shows a tag that is not live") }
        }
        var counted: [CalendarDay: (total: Int, completed: Int)] = [:]
        for todo in todos {
            counted[todo.deadline, default: (0, 0)].total += 1
            if todo.isCompleted { counted[todo.deadline, default: (0, 0)].completed += 1 }
        }
        let expected = counted.map { DailyStat(date: $0.key, total: $0.value.total, completed: $0.value.completed) }
            .sorted { $0.date < $1.date }
        let stats = try await store.stats()
        if stats != expected { broken.append("stats \(stats) are not the live todos counted per day \(expected)") }
        return broken
    }
}

/// One random store command, decided from the ids known before the step.
private enum Command: Sendable, CustomStringConvertible {
    case addUser, deleteUser(UUID), addTodo(UUID?, String), moveTodo(UUID, String), completeTodo(UUID)
    case addTag(String), renameTag(UUID, String), deleteTag(UUID), tagTodo(UUID, UUID)

    static let names = ["Work", "WORK", "work", "Straße", "STRASSE", "Home"]
    static let days = ["2026-12-01", "2026-12-02", "2026-12-03"]

    static func random(_ random: inout SeededGenerator, users: [UUID], todos: [UUID], tags: [UUID]) -> Command {
        func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[Int.random(in: 0..<items.count, using: &random)] }
        let day = pick(days)!
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<10: return .addUser
        case 10..<16: return pick(users).map(Command.deleteUser) ?? .addUser
        case 16..<40: return .addTodo(pick(users), day)
        case 40..<55: return pick(todos).map { .moveTodo($0, day) } ?? .addTodo(nil, day)
        case 55..<62: return pick(todos).map(Command.completeTodo) ?? .addUser
        case 62..<75: return .addTag(pick(names)!)
        case 75..<82: return pick(tags).map { .renameTag($0, pick(names)!) } ?? .addTag(pick(names)!)
        case 82..<87: return pick(tags).map(Command.deleteTag) ?? .addTag(pick(names)!)
        default:
            guard let todo = pick(todos), let tag = pick(tags) else { return .addTag(pick(names)!) }
            return .tagTodo(todo, tag)
        }
    }

    /// Runs the command; a rejection by a rule is an expected outcome, anything else fails the test.
    func run(on store: ChronicleStore) async throws -> Created? {
        do {
            switch self {
            case .addUser: return .user(try await store.createUser(name: "U", age: 1).id)
            case .deleteUser(let id): try await store.deleteUser(id)
            case .addTodo(let user, let day): return .todo(try await store.createTodo(title: "T", deadline: day, userId: user).id)
            case .moveTodo(let id, let day): try await store.updateTodo(id, deadline: day)
            case .completeTodo(let id): try await store.completeTodo(id)
            case .addTag(let name): return .tag(try await store.createTag(name: name, color: "#123456").id)
            case .renameTag(let id, let name): try await store.updateTag(id, name: name)
            case .deleteTag(let id): try await store.deleteTag(id)
            case .tagTodo(let todo, let tag): try await store.tagTodo(todo, tag: tag)
            }
        } catch ChronicleError.rejected {
        }
        return nil
    }

    var description: String {
        switch self {
        case .addUser: "addUser"
        case .deleteUser(let id): "deleteUser(\(id))"
        case .addTodo(let user, let day): "addTodo(\(user.map(\.uuidString) ?? "-"), \(day))"
        case .moveTodo(let id, let day): "moveTodo(\(id), \(day))"
        case .completeTodo(let id): "completeTodo(\(id))"
        case .addTag(let name): "addTag(\(name))"
        case .renameTag(let id, let name): "renameTag(\(id), \(name))"
        case .deleteTag(let id): "deleteTag(\(id))"
        case .tagTodo(let todo, let tag): "tagTodo(\(todo), \(tag))"
        }
    }
}

private enum Created: Sendable {
    case user(UUID), todo(UUID), tag(UUID)
}

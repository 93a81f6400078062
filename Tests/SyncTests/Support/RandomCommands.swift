import Chronicle
import ChronicleTestSupport
import ChronicleTodoDomain
import Foundation

// MARK: - Random commands

extension ConvergenceRun {
    /// A random command on `device`, aimed at what the device shows now; a refusal by the
    /// device's rules is part of the game.
    /// Candidates are ordered by when this run created them (`created`: id → ordinal), not as
    /// the store lists them (by ids, which are random), so a seed replays the same commands.
    static func command(on device: SyncCluster.Device, _ random: inout SeededGenerator,
                        created: inout [UUID: Int]) async throws -> String {
        let store = device.store
        try await store.refresh()
        let order = created
        func ordered<T>(_ items: [T], _ id: (T) -> UUID) -> [T] {
            items.sorted { (order[id($0)] ?? .max, id($0).uuidString) < (order[id($1)] ?? .max, id($1).uuidString) }
        }
        var todos = ordered(try await store.todos(), \.id)
        for index in todos.indices { todos[index].tags = ordered(todos[index].tags, { $0 }) }
        let command = Command.random(&random, users: ordered(try await store.users(), \.id), todos: todos,
                                     tags: ordered(try await store.tags(), \.id))
        do {
            if let id = try await command.run(on: store) { created[id] = created.count }
            return "\(command) -> ok"
        } catch {
            guard let rule = Self.ruleRefusal(error) else { throw UnexpectedFailure(command: "\(command)", error: error) }
            return "\(command) -> refused: \(rule)"
        }
    }

    /// The rule `error` refuses a command by, or `nil` when it is anything else (a storage
    /// failure, a damaged store, a conflict between writers), which fails the run.
    static func ruleRefusal(_ error: any Error) -> DomainError? {
        let domain: DomainError
        switch error {
        case ChronicleError.rejected(let rule): domain = rule
        case let rule as DomainError: domain = rule
        default: return nil
        }
        if case .invalidEvent = domain { return nil }
        return domain
    }
}

/// A command that failed for a reason other than the app's rules: the run fails with its seed.
struct UnexpectedFailure: Error, CustomStringConvertible {
    let command: String
    let error: any Error
    var description: String { "\(command) failed, not by a rule: \(error)" }
}

/// One command of the app's, with its arguments drawn from a device's current state.
enum Command: CustomStringConvertible {
    case createUser(name: String, age: Int)
    case updateUser(UUID, name: String?, age: Int?)
    case deleteUser(UUID)
    case createTodo(title: String, deadline: String, userId: UUID?, memo: String?)
    case updateTodo(UUID, title: String?, deadline: String?, memo: String?)
    case completeTodo(UUID)
    case reopenTodo(UUID)
    case deleteTodo(UUID)
    case createTag(name: String, color: String)
    case updateTag(UUID, name: String?, color: String?)
    case deleteTag(UUID)
    case tagTodo(UUID, tag: UUID)
    case untagTodo(UUID, tag: UUID)
    case undo(steps: Int)
    case redo(steps: Int)

    static let userNames = ["Ada", "Grace", "Linus", "ada"]
    /// Few tag names, in case variants, so devices collide on them.
    static let tagNames = ["Work", "work", "WORK", "Home", "home", "HOME", "Errands"]
    static let colors = ["#ff8800", "#00AA00", "#123abc", "#000000"]
    static let days = ["2026-12-01", "2026-12-02", "2026-12-03"]
    static let titles = ["Write notes", "Buy milk", "Call Bob", "Fix the bike", "Read"]
    static let memos = ["urgent", "later", "ask Ada"]

    private enum Kind: CaseIterable {
        case createUser, updateUser, deleteUser, createTodo, updateTodo, completeTodo, reopenTodo, deleteTodo
        case createTag, updateTag, deleteTag, tagTodo, untagTodo, undo, redo

        var weight: Int {
            switch self {
            case .createUser: 8
            case .updateUser: 6
            case .deleteUser: 4
            case .createTodo: 12
            case .updateTodo: 10
            case .completeTodo: 5
            case .reopenTodo: 4
            case .deleteTodo: 4
            case .createTag: 8
            case .updateTag: 5
            case .deleteTag: 3
            case .tagTodo: 8
            case .untagTodo: 4
            case .undo: 6
            case .redo: 3
            }
        }
    }

    static func random(_ random: inout SeededGenerator, users: [User], todos: [Todo], tags: [ChronicleTodoDomain.Tag]) -> Command {
        func pick<T>(_ items: [T]) -> T? { items.isEmpty ? nil : items[Int.random(in: 0..<items.count, using: &random)] }
        func maybe<T>(_ items: [T]) -> T? { Bool.random(using: &random) ? pick(items) : nil }
        let total = Kind.allCases.map(\.weight).reduce(0, +)
        var roll = Int.random(in: 0..<total, using: &random)
        let kind = Kind.allCases.first { kind in
            if roll < kind.weight { return true }
            roll -= kind.weight
            return false
        }!
        let createUser = Command.createUser(name: pick(userNames)!, age: Int.random(in: 18...80, using: &random))
        let createTodo = Command.createTodo(title: pick(titles)!, deadline: pick(days)!, userId: maybe(users)?.id, memo: maybe(memos))
        switch kind {
        case .undo:
            return .undo(steps: Int.random(in: 1...2, using: &random))
        case .redo:
            return .redo(steps: Int.random(in: 1...2, using: &random))
        case .createUser:
            return createUser
        case .updateUser:
            guard let user = pick(users) else { return createUser }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .updateUser(user.id, name: pick(userNames), age: nil)
            case 1: return .updateUser(user.id, name: nil, age: Int.random(in: 18...80, using: &random))
            default: return .updateUser(user.id, name: pick(userNames), age: Int.random(in: 18...80, using: &random))
            }
        case .deleteUser:
            guard let user = pick(users) else { return createUser }
            return .deleteUser(user.id)
        case .createTodo:
            return createTodo
        case .updateTodo:
            guard let todo = pick(todos) else { return createTodo }
            var title = maybe(titles), deadline = maybe(days), memo = maybe(memos)
            if title == nil, deadline == nil, memo == nil {
                switch Int.random(in: 0..<3, using: &random) {
                case 0: title = pick(titles)
                case 1: deadline = pick(days)
                default: memo = pick(memos)
                }
            }
            return .updateTodo(todo.id, title: title, deadline: deadline, memo: memo)
        case .completeTodo:
            guard let todo = pick(todos.filter { !$0.isCompleted }) ?? pick(todos) else { return createTodo }
            return .completeTodo(todo.id)
        case .reopenTodo:
            guard let todo = pick(todos.filter(\.isCompleted)) ?? pick(todos) else { return createTodo }
            return .reopenTodo(todo.id)
        case .deleteTodo:
            guard let todo = pick(todos) else { return createTodo }
            return .deleteTodo(todo.id)
        case .createTag:
            return .createTag(name: pick(tagNames)!, color: pick(colors)!)
        case .updateTag:
            guard let tag = pick(tags) else { return .createTag(name: pick(tagNames)!, color: pick(colors)!) }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .updateTag(tag.id, name: pick(tagNames), color: nil)
            case 1: return .updateTag(tag.id, name: nil, color: pick(colors))
            default: return .updateTag(tag.id, name: pick(tagNames), color: pick(colors))
            }
        case .deleteTag:
            guard let tag = pick(tags) else { return .createTag(name: pick(tagNames)!, color: pick(colors)!) }
            return .deleteTag(tag.id)
        case .tagTodo:
            guard let todo = pick(todos) else { return createTodo }
            guard let tag = pick(tags) else { return .createTag(name: pick(tagNames)!, color: pick(colors)!) }
            return .tagTodo(todo.id, tag: tag.id)
        case .untagTodo:
            guard let todo = pick(todos.filter { !$0.tags.isEmpty }), let tag = pick(todo.tags) else {
                guard let todo = pick(todos), let tag = pick(tags) else { return createTodo }
                return .tagTodo(todo.id, tag: tag.id)
            }
            return .untagTodo(todo.id, tag: tag)
        }
    }

    /// Runs the command; returns the id of the entity it created, if any.
    func run(on store: ChronicleStore) async throws -> UUID? {
        switch self {
        case let .createUser(name, age): return try await store.createUser(name: name, age: age).id
        case let .updateUser(id, name, age): try await store.updateUser(id, name: name, age: age)
        case let .deleteUser(id): try await store.deleteUser(id)
        case let .createTodo(title, deadline, userId, memo):
            return try await store.createTodo(title: title, deadline: deadline, userId: userId, memo: memo).id
        case let .updateTodo(id, title, deadline, memo): try await store.updateTodo(id, title: title, deadline: deadline, memo: memo)
        case let .completeTodo(id): try await store.completeTodo(id)
        case let .reopenTodo(id): try await store.reopenTodo(id)
        case let .deleteTodo(id): try await store.deleteTodo(id)
        case let .createTag(name, color): return try await store.createTag(name: name, color: color).id
        case let .updateTag(id, name, color): try await store.updateTag(id, name: name, color: color)
        case let .deleteTag(id): try await store.deleteTag(id)
        case let .tagTodo(todo, tag): try await store.tagTodo(todo, tag: tag)
        case let .untagTodo(todo, tag): try await store.untagTodo(todo, tag: tag)
        case let .undo(steps): try await store.undo(steps: steps)
        case let .redo(steps): try await store.redo(steps: steps)
        }
        return nil
    }

    var description: String {
        func short(_ id: UUID) -> String { String(id.uuidString.lowercased().suffix(6)) }
        func text(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "-" }
        switch self {
        case let .createUser(name, age): return "createUser(\(text(name)), \(age))"
        case let .updateUser(id, name, age): return "updateUser(\(short(id)), name: \(text(name)), age: \(age.map(String.init) ?? "-"))"
        case let .deleteUser(id): return "deleteUser(\(short(id)))"
        case let .createTodo(title, deadline, userId, memo):
            return "createTodo(\(text(title)), \(deadline), user: \(userId.map(short) ?? "-"), memo: \(text(memo)))"
        case let .updateTodo(id, title, deadline, memo):
            return "updateTodo(\(short(id)), title: \(text(title)), deadline: \(deadline ?? "-"), memo: \(text(memo)))"
        case let .completeTodo(id): return "completeTodo(\(short(id)))"
        case let .reopenTodo(id): return "reopenTodo(\(short(id)))"
        case let .deleteTodo(id): return "deleteTodo(\(short(id)))"
        case let .createTag(name, color): return "createTag(\(text(name)), \(color))"
        case let .updateTag(id, name, color): return "updateTag(\(short(id)), name: \(text(name)), color: \(color ?? "-"))"
        case let .deleteTag(id): return "deleteTag(\(short(id)))"
        case let .tagTodo(todo, tag): return "tagTodo(\(short(todo)), tag: \(short(tag)))"
        case let .untagTodo(todo, tag): return "untagTodo(\(short(todo)), tag: \(short(tag)))"
        case let .undo(steps): return "undo(steps: \(steps))"
        case let .redo(steps): return "redo(steps: \(steps))"
        }
    }
}

@_spi(Operator) import Chronicle
import ChronicleTestSupport
import Foundation

/// One command of the todo app, drawn at random with valid and invalid values, that runs
/// either through ``ChronicleStore``'s methods or through the declared model's decider.
/// Entities are named by their index in the caller's pools; an index past a pool names an
/// entity no store knows.
enum RandomTodoCommand {
    case createUser(name: String, age: Int)
    case updateUser(Int, name: String?, age: Int?)
    case deleteUser(Int)
    case createTodo(title: String, deadline: String, user: Int?, memo: String?)
    case updateTodo(Int, title: String?, deadline: String?, memo: String?)
    case completeTodo(Int), reopenTodo(Int), deleteTodo(Int)
    case createTag(name: String, color: String)
    case updateTag(Int, name: String?, color: String?)
    case deleteTag(Int)
    case tagTodo(Int, tag: Int), untagTodo(Int, tag: Int)

    enum Kind { case user, todo, tag }

    // Valid values first, then the ones a rule refuses (drawn one time in five).
    static let names = (["Ada", " Ada ", "Bob", "Zoë"], ["", "   ", String(repeating: "n", count: 201)])
    static let ages = ([36, 0, 150], [-1, 151])
    static let titles = (["Pay rent", "  Call  ", "x", "Éclair"], ["", String(repeating: "t", count: 501)])
    static let days = (["2026-03-01", "2026-03-02", "2024-02-29"], ["2026-02-30", "soon"])
    static let memos = (["", "chapter 2"], [String]())
    static let tagNames = (["Work", "work", " WORK ", "Straße", "STRASSE", "Home"], ["", String(repeating: "g", count: 51)])
    static let colors = (["#aabbcc", "#AABBCC", "#00aa00"], ["red", "#12345"])

    /// The kind of entity the command creates.
    var creates: Kind? {
        switch self {
        case .createUser: .user
        case .createTodo: .todo
        case .createTag: .tag
        default: nil
        }
    }

    static func random(_ random: inout SeededGenerator, users: Int, todos: Int, tags: Int) -> RandomTodoCommand {
        func pick<T>(_ values: ([T], [T])) -> T {
            let pool = values.1.isEmpty || Int.random(in: 0..<5, using: &random) > 0 ? values.0 : values.1
            return pool[Int.random(in: 0..<pool.count, using: &random)]
        }
        func maybe<T>(_ values: ([T], [T])) -> T? { Bool.random(using: &random) ? pick(values) : nil }
        /// An index into a pool of `count`, now and then one past it (unknown).
        func index(_ count: Int) -> Int { Int.random(in: 0...count, using: &random) == count ? count : Int.random(in: 0..<max(count, 1), using: &random) }
        switch Int.random(in: 0..<14, using: &random) {
        case 0: return .createUser(name: pick(names), age: pick(ages))
        case 1: return .updateUser(index(users), name: maybe(names), age: maybe(ages))
        case 2: return .deleteUser(index(users))
        case 3, 4: return .createTodo(title: pick(titles), deadline: pick(days), user: Bool.random(using: &random) ? index(users) : nil, memo: maybe(memos))
        case 5: return .updateTodo(index(todos), title: maybe(titles), deadline: maybe(days), memo: maybe(memos))
        case 6: return .completeTodo(index(todos))
        case 7: return .reopenTodo(index(todos))
        case 8: return .deleteTodo(index(todos))
        case 9: return .createTag(name: pick(tagNames), color: pick(colors))
        case 10: return .updateTag(index(tags), name: maybe(tagNames), color: maybe(colors))
        case 11: return .deleteTag(index(tags))
        case 12: return .tagTodo(index(todos), tag: index(tags))
        default: return .untagTodo(index(todos), tag: index(tags))
        }
    }

    /// The id at `index` of `pool`, or a new one (an entity no store knows).
    private static func id(_ index: Int, _ pool: [UUID]) -> UUID {
        index < pool.count ? pool[index] : UUID()
    }

    /// Runs the command through the store's own methods; the id it created, if any.
    func run(on store: ChronicleStore, users: [UUID], todos: [UUID], tags: [UUID]) async -> Result<UUID?, any Error> {
        do {
            switch self {
            case .createUser(let name, let age): return .success(try await store.createUser(name: name, age: age).id)
            case .updateUser(let i, let name, let age): _ = try await store.updateUser(Self.id(i, users), name: name, age: age)
            case .deleteUser(let i): try await store.deleteUser(Self.id(i, users))
            case .createTodo(let title, let deadline, let user, let memo):
                return .success(try await store.createTodo(title: title, deadline: deadline, userId: user.map { Self.id($0, users) }, memo: memo).id)
            case .updateTodo(let i, let title, let deadline, let memo):
                _ = try await store.updateTodo(Self.id(i, todos), title: title, deadline: deadline, memo: memo)
            case .completeTodo(let i): _ = try await store.completeTodo(Self.id(i, todos))
            case .reopenTodo(let i): _ = try await store.reopenTodo(Self.id(i, todos))
            case .deleteTodo(let i): try await store.deleteTodo(Self.id(i, todos))
            case .createTag(let name, let color): return .success(try await store.createTag(name: name, color: color).id)
            case .updateTag(let i, let name, let color): _ = try await store.updateTag(Self.id(i, tags), name: name, color: color)
            case .deleteTag(let i): try await store.deleteTag(Self.id(i, tags))
            case .tagTodo(let i, let tag): _ = try await store.tagTodo(Self.id(i, todos), tag: Self.id(tag, tags))
            case .untagTodo(let i, let tag): _ = try await store.untagTodo(Self.id(i, todos), tag: Self.id(tag, tags))
            }
            return .success(nil)
        } catch {
            return .failure(error)
        }
    }

    /// Runs the command through the todo app's declared model: decided on the store's log
    /// folded in memory, appended with the decision's keys; the id it created, if any.
    func run(decidingOn store: ChronicleStore, users: [UUID], todos: [UUID], tags: [UUID]) async -> Result<UUID?, any Error> {
        typealias Value = ChronicleModel.FieldValue
        let new = UUID()
        let (entity, id, action): (String, UUID, ChronicleModel.Command.Action)
        func given(_ pairs: [(String, Value?)]) -> [String: Value] {
            Dictionary(uniqueKeysWithValues: pairs.compactMap { name, value in value.map { (name, $0) } })
        }
        switch self {
        case .createUser(let name, let age): (entity, id, action) = ("User", new, .create(["name": .text(name), "age": .integer(age)]))
        case .updateUser(let i, let name, let age):
            (entity, id, action) = ("User", Self.id(i, users), .update(given([("name", name.map(Value.text)), ("age", age.map(Value.integer))])))
        case .deleteUser(let i): (entity, id, action) = ("User", Self.id(i, users), .delete)
        case .createTodo(let title, let deadline, let user, let memo):
            (entity, id, action) = ("Todo", new, .create(given([("title", .text(title)), ("deadline", .text(deadline)),
                                                                 ("userId", user.map { .text(Self.id($0, users).uuidString) }),
                                                                 ("memo", memo.map(Value.text))])))
        case .updateTodo(let i, let title, let deadline, let memo):
            (entity, id, action) = ("Todo", Self.id(i, todos), .update(given([("title", title.map(Value.text)), ("deadline", deadline.map(Value.text)),
                                                                               ("memo", memo.map(Value.text))])))
        case .completeTodo(let i): (entity, id, action) = ("Todo", Self.id(i, todos), .update(["isCompleted": .boolean(true)]))
        case .reopenTodo(let i): (entity, id, action) = ("Todo", Self.id(i, todos), .update(["isCompleted": .boolean(false)]))
        case .deleteTodo(let i): (entity, id, action) = ("Todo", Self.id(i, todos), .delete)
        case .createTag(let name, let color): (entity, id, action) = ("Tag", new, .create(["name": .text(name), "color": .text(color)]))
        case .updateTag(let i, let name, let color):
            (entity, id, action) = ("Tag", Self.id(i, tags), .update(given([("name", name.map(Value.text)), ("color", color.map(Value.text))])))
        case .deleteTag(let i): (entity, id, action) = ("Tag", Self.id(i, tags), .delete)
        case .tagTodo(let i, let tag): (entity, id, action) = ("Todo", Self.id(i, todos), .add(field: "tags", member: Self.id(tag, tags)))
        case .untagTodo(let i, let tag): (entity, id, action) = ("Todo", Self.id(i, todos), .remove(field: "tags", member: Self.id(tag, tags)))
        }
        do {
            let reading = try ModelReplay.snapshot(log: store.log, model: TodoAppModel.model)
            let decision = try ChronicleModel.Decider(TodoAppModel.model).decide(ChronicleModel.Command(entity: entity, id: id, action: action),
                                                                                   reading: reading)
            _ = try await ModelAppend.append(decision, to: store.log)
            return .success(creates == nil ? nil : id)
        } catch {
            return .failure(error)
        }
    }
}

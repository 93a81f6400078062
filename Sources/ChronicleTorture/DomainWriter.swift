@_spi(Operator) import Chronicle
import Foundation

/// `domain-writer`: random user and todo commands through `ChronicleStore` (with its
/// background follower folding the stored entities), so a kill can land in an append, a
/// catch-up's batch, or between them.
///
/// Each task owns the entities it creates (and, at start, a share of the live ones, by the
/// last byte of their id), so tasks and processes never contend for an entity and each
/// knows what its commands wrote. After a command returns, one `stream version type` line
/// per stream it appended to goes to the ack file.
enum DomainWriter {
    static func run(_ raw: [String]) async throws {
        let arguments = try Arguments(raw, flagNames: ["echo-acks", "wait-for-go"])
        let store = try arguments.string("store")
        let seed = UInt64(try arguments.int("seed"))
        let steps = try arguments.int("count", default: Int.max)
        let concurrency = max(1, try arguments.int("concurrency", default: 2))
        let partition = try arguments.int("partition", default: 0)
        let partitions = max(1, try arguments.int("partitions", default: 1))
        guard partition < partitions else { throw UsageError("--partition must be below --partitions") }
        let acks = try AckFile(path: arguments.optionalString("ack-file"))
        let echo = arguments.flag("echo-acks")

        let chronicle = try ChronicleStore(directory: store)
        try await chronicle.refresh()
        let slots = partitions * concurrency
        var scripts: [DomainScript] = []
        for worker in 0..<concurrency {
            scripts.append(DomainScript(slot: partition * concurrency + worker, slots: slots,
                                        random: SplitMix64(seed: seed &+ UInt64(worker) &* 0x9E37_79B9_7F4A_7C15)))
        }
        for user in try await chronicle.users() {
            let slot = DomainScript.slot(of: user.id, slots: slots)
            if let index = scripts.firstIndex(where: { $0.slot == slot }) { scripts[index].users[user.id] = [] }
        }
        for todo in try await chronicle.todos() {
            let slot = DomainScript.slot(of: todo.userId ?? todo.id, slots: slots)
            guard let index = scripts.firstIndex(where: { $0.slot == slot }) else { continue }
            if let owner = todo.userId { scripts[index].users[owner, default: []].insert(todo.id) }
            scripts[index].todos[todo.id] = .init(user: todo.userId, completed: todo.isCompleted)
        }
        Output.line("ready")
        if arguments.flag("wait-for-go") { _ = readLine() }

        let acknowledged = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for script in scripts {
                group.addTask {
                    var script = script
                    for _ in 0..<steps {
                        let lines = try await script.step(chronicle)
                        try acks.record(lines)
                        let total = acknowledged.add(1)
                        if echo { Output.line("acked \(total)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let head = try chronicle.log.head()
        await chronicle.close()
        Output.line("done \(head)")
    }
}

/// One task's commands and what it knows of the entities it owns.
struct DomainScript: Sendable {
    struct TodoState: Sendable {
        var user: UUID?
        var completed: Bool
    }

    let slot: Int
    let slots: Int
    var random: SplitMix64
    /// Live users, each with its live todos.
    var users: [UUID: Set<UUID>] = [:]
    var todos: [UUID: TodoState] = [:]

    init(slot: Int, slots: Int, random: SplitMix64) {
        self.slot = slot
        self.slots = slots
        self.random = random
    }

    static func slot(of id: UUID, slots: Int) -> Int { Int(id.uuid.15) % slots }

    static let days = (1...9).map { "2026-12-0\($0)" }

    /// Runs one random command; returns its ack lines (none when the domain refused it).
    mutating func step(_ store: ChronicleStore) async throws -> [String] {
        let roll = Int.random(in: 0..<100, using: &random)
        do {
            switch roll {
            case 0..<15: return try await createUser(store)
            case 15..<22: return try await updateUser(store)
            case 22..<50: return try await createTodo(store)
            case 50..<65: return try await moveTodo(store)
            case 65..<80: return try await completeOrReopen(store)
            case 80..<92: return try await deleteTodo(store)
            default: return try await deleteUser(store)
            }
        } catch ChronicleError.rejected {
            return []
        }
    }

    private mutating func createUser(_ store: ChronicleStore) async throws -> [String] {
        let names = ["Ada", "Grace", "Linus", "Zoë", "Émile", "李"]
        let name = names.randomElement(using: &random)! + " \(Int.random(in: 1...999, using: &random))"
        let user = try await store.createUser(name: name, age: Int.random(in: 0...150, using: &random))
        users[user.id] = []
        return [try ack(store, "user", user.id, "UserCreated")]
    }

    private mutating func updateUser(_ store: ChronicleStore) async throws -> [String] {
        guard let id = users.keys.sorted(by: { $0.uuidString < $1.uuidString }).randomElement(using: &random) else {
            return try await createUser(store)
        }
        try await store.updateUser(id, age: Int.random(in: 0...150, using: &random))
        return [try ack(store, "user", id, "UserUpdated")]
    }

    private mutating func createTodo(_ store: ChronicleStore) async throws -> [String] {
        let owners = users.keys.sorted { $0.uuidString < $1.uuidString }
        let owner = Bool.random(using: &random) ? owners.randomElement(using: &random) : nil
        let todo = try await store.createTodo(title: "Task \(Int.random(in: 1...9999, using: &random))",
                                              deadline: Self.days.randomElement(using: &random)!, userId: owner,
                                              memo: Bool.random(using: &random) ? "memo" : nil)
        todos[todo.id] = TodoState(user: owner, completed: false)
        if let owner { users[owner, default: []].insert(todo.id) }
        return [try ack(store, "todo", todo.id, "TodoCreated")]
    }

    private mutating func pickTodo(_ filter: (TodoState) -> Bool = { _ in true }) -> UUID? {
        todos.filter { filter($0.value) }.keys.sorted { $0.uuidString < $1.uuidString }.randomElement(using: &random)
    }

    private mutating func moveTodo(_ store: ChronicleStore) async throws -> [String] {
        guard let id = pickTodo() else { return try await createTodo(store) }
        try await store.updateTodo(id, deadline: Self.days.randomElement(using: &random)!)
        return [try ack(store, "todo", id, "TodoUpdated")]
    }

    private mutating func completeOrReopen(_ store: ChronicleStore) async throws -> [String] {
        guard let id = pickTodo() else { return try await createTodo(store) }
        if todos[id]!.completed {
            try await store.reopenTodo(id)
            todos[id]!.completed = false
            return [try ack(store, "todo", id, "TodoReopened")]
        }
        try await store.completeTodo(id)
        todos[id]!.completed = true
        return [try ack(store, "todo", id, "TodoCompleted")]
    }

    private mutating func deleteTodo(_ store: ChronicleStore) async throws -> [String] {
        guard let id = pickTodo() else { return try await createTodo(store) }
        try await store.deleteTodo(id)
        if let owner = todos.removeValue(forKey: id)?.user { users[owner]?.remove(id) }
        return [try ack(store, "todo", id, "TodoDeleted")]
    }

    private mutating func deleteUser(_ store: ChronicleStore) async throws -> [String] {
        guard let id = users.keys.sorted(by: { $0.uuidString < $1.uuidString }).randomElement(using: &random) else {
            return try await createUser(store)
        }
        try await store.deleteUser(id)
        var lines = [try ack(store, "user", id, "UserDeleted")]
        for todo in users.removeValue(forKey: id)?.sorted(by: { $0.uuidString < $1.uuidString }) ?? [] {
            todos[todo] = nil
            lines.append(try ack(store, "todo", todo, "TodoDeleted"))
        }
        return lines
    }

    /// `stream version type`: the stream's version right after the command (this task is
    /// the stream's only writer, so it is the version the command appended).
    private func ack(_ store: ChronicleStore, _ kind: String, _ id: UUID, _ type: String) throws -> String {
        let stream = "\(kind)-\(id.uuidString.lowercased())"
        return "\(stream) \(try store.log.version(of: stream)) \(type)"
    }
}

/// SplitMix64: a small deterministic generator, so a run replays from its seed.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

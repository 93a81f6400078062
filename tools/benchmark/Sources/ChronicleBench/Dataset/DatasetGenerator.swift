import ChronicleTodoDomain
import ChronicleLog
import Foundation

/// Generates a realistic, valid history of users and todos: every event is one the
/// todo app's model could have decided (updates only touch live entities, completing
/// only open todos, deleting a user deletes its todos first), so every projection folds
/// every event.
///
/// Mix (of 1,000,000 events): 1% users created, 0.5% users updated, 0.1% users deleted
/// (after their todos), 42% todos created with a deadline spread uniformly over 2026, 17%
/// todos updated (deadline moved, title or memo changed), 25% completed or reopened, 15%
/// deleted (a user's deletion deletes its todos too).
/// Titles run 12–80 characters, a third of the todos carry a 20–240 character memo, a
/// few texts are not ASCII. Ids and timestamps are time-ordered, like `UUIDv7.make()`.
///
/// Which todo a change touches: todos are mostly edited, completed or deleted soon after
/// they were created, so three changes in four go to a recent todo (exponentially
/// distributed over creation order, mean 5,000 todos back) and one in four to any live
/// todo, uniformly. With time-ordered ids the recent streams sit together in every
/// stream-ordered index (Chronicle's and SQLite's alike); the uniform quarter lands
/// anywhere. `recencyShare` 0 makes every change uniform (the worst case for any index).
struct DatasetGenerator {
    private var rng: SplitMix64
    /// The clock and the time-ordered ids.
    private var stamps = EventStamps()
    private var entities: UInt32 = 0
    private var users = EntityPool<UserState>()
    private var todos = EntityPool<TodoState>()
    /// Every todo ever created, in creation order; deleted ones are gone.
    private var creationOrder = CreationOrder<TodoState>()
    private let recencyShare: Double
    private let recencyMean: Double
    private let firstDay: CalendarDay

    private final class UserState: Pooled {
        let id: UUID
        let stream: String
        let entity: UInt32
        var version: UInt64 = 0
        var slot = 0
        var todos: [UInt32: TodoState] = [:]   // its live todos, by entity number
        init(id: UUID, entity: UInt32) {
            self.id = id
            self.entity = entity
            stream = TodoEvent.userStream(id)
        }
    }

    private final class TodoState: Pooled {
        let id: UUID
        let stream: String
        let entity: UInt32
        var version: UInt64 = 0
        var slot = 0
        var created = 0
        var completed = false
        var owner: UserState?
        init(id: UUID, entity: UInt32) {
            self.id = id
            self.entity = entity
            stream = TodoEvent.todoStream(id)
        }
    }

    init(seed: UInt64 = 0x43_48_52_4F_4E_49_43_4C, recencyShare: Double = 0.75, recencyMean: Double = 5_000) {
        rng = SplitMix64(seed: seed)
        self.recencyShare = recencyShare
        self.recencyMean = recencyMean
        firstDay = try! CalendarDay(year: 2026, month: 1, day: 1)
    }

    /// Calls `emit` exactly `count` times, in log order.
    mutating func generate(count: Int, _ emit: (BenchEvent) -> Void) {
        var emitted = 0
        func send(_ event: BenchEvent) {
            guard emitted < count else { return }
            emit(event)
            emitted += 1
        }
        while emitted < count {
            let roll = rng.unit()
            if users.count < 5 || roll < 0.010 {
                send(createUser())
            } else if roll < 0.015 {
                send(updateUser())
            } else if roll < 0.016, users.count > 50 {
                for event in deleteUser() { send(event) }
            } else if todos.isEmpty || roll < 0.445 {
                send(createTodo())
            } else if roll < 0.615 {
                send(updateTodo())
            } else if roll < 0.875 {
                send(toggleTodo())
            } else {
                send(deleteTodo())
            }
        }
    }

    // MARK: - Users

    private mutating func createUser() -> BenchEvent {
        let user = UserState(id: nextUUID(), entity: nextEntity())
        users.insert(user)
        let age = 16 + rng.below(70)
        return event(user.stream, &user.version, user.entity, "UserCreated",
                     TodoEvent.userData(name: personName(), age: age))
    }

    private mutating func updateUser() -> BenchEvent {
        let user = users.random(&rng)
        let data = rng.chance(0.5)
            ? TodoEvent.userData(name: personName(), age: nil)
            : TodoEvent.userData(name: nil, age: 16 + rng.below(70))
        return event(user.stream, &user.version, user.entity, "UserUpdated", data)
    }

    /// The user's live todos deleted first, then the user: one atomic batch in the app.
    private mutating func deleteUser() -> [BenchEvent] {
        let user = users.random(&rng)
        var events: [BenchEvent] = []
        for entity in user.todos.keys.sorted() {   // sorted: dictionary order differs between processes
            let todo = user.todos[entity]!
            events.append(event(todo.stream, &todo.version, todo.entity, "TodoDeleted"))
            removeTodo(todo)
        }
        events.append(event(user.stream, &user.version, user.entity, "UserDeleted"))
        users.remove(user)
        return events
    }

    // MARK: - Todos

    private mutating func createTodo() -> BenchEvent {
        let todo = TodoState(id: nextUUID(), entity: nextEntity())
        todos.insert(todo)
        todo.created = creationOrder.append(todo)
        let owner = rng.chance(0.85) ? users.random(&rng) : nil
        todo.owner = owner
        owner?.todos[todo.entity] = todo
        let memo = rng.chance(0.33) ? sentence(20 + rng.below(221)) : nil
        return event(todo.stream, &todo.version, todo.entity, "TodoCreated",
                     TodoEvent.todoData(title: sentence(12 + rng.below(69)), deadline: randomDay(),
                                        userId: owner?.id, memo: memo))
    }

    private mutating func updateTodo() -> BenchEvent {
        let todo = pickTodo()
        let roll = rng.unit()
        let data: Data
        if roll < 0.55 {
            data = TodoEvent.todoData(title: nil, deadline: randomDay(), memo: nil)
        } else if roll < 0.85 {
            data = TodoEvent.todoData(title: sentence(12 + rng.below(69)), deadline: nil, memo: nil)
        } else {
            data = TodoEvent.todoData(title: nil, deadline: nil, memo: sentence(20 + rng.below(221)))
        }
        return event(todo.stream, &todo.version, todo.entity, "TodoUpdated", data)
    }

    private mutating func toggleTodo() -> BenchEvent {
        let todo = pickTodo()
        todo.completed.toggle()
        return event(todo.stream, &todo.version, todo.entity, todo.completed ? "TodoCompleted" : "TodoReopened")
    }

    private mutating func deleteTodo() -> BenchEvent {
        let todo = pickTodo()
        let result = event(todo.stream, &todo.version, todo.entity, "TodoDeleted")
        removeTodo(todo)
        return result
    }

    /// A live todo: a recent one (most of the time) or any one.
    private mutating func pickTodo() -> TodoState {
        creationOrder.recent(&rng, share: recencyShare, mean: recencyMean) ?? todos.random(&rng)
    }

    private mutating func removeTodo(_ todo: TodoState) {
        creationOrder.remove(at: todo.created)
        todo.owner?.todos[todo.entity] = nil
        todos.remove(todo)
    }

    // MARK: - Building blocks

    /// The next event of `stream`: of type `type`, with `data` (``TodoEvent/emptyData`` when
    /// it gives no fields).
    private mutating func event(_ stream: String, _ version: inout UInt64, _ entity: UInt32,
                                _ type: String, _ data: Data = TodoEvent.emptyData) -> BenchEvent {
        version += 1
        let clock = stamps.tick(&rng)
        return BenchEvent(id: nextUUID(), stream: stream, version: version, type: type,
                          timestampMilliseconds: clock, data: data, entity: entity)
    }

    private mutating func nextEntity() -> UInt32 {
        entities += 1
        return entities
    }

    /// A UUIDv7 from the generator's clock: 48 bits of milliseconds, a 12-bit counter, 62 seeded random bits.
    private mutating func nextUUID() -> UUID {
        stamps.nextUUID(&rng)
    }

    private mutating func randomDay() -> CalendarDay { firstDay.adding(days: rng.below(365)) }

    private static let words = [
        "buy", "milk", "call", "mom", "review", "pull", "request", "book", "flights", "to", "Lisbon", "pay",
        "rent", "renew", "passport", "water", "plants", "fix", "the", "bike", "dentist", "appointment", "send",
        "invoice", "for", "March", "prepare", "slides", "quarterly", "meeting", "pick", "up", "kids", "from",
        "school", "clean", "garage", "update", "résumé", "café", "with", "Zoë", "order", "birthday", "cake",
        "backup", "laptop", "read", "chapter", "three", "schedule", "car", "service", "cancel", "gym",
        "membership", "write", "blog", "post", "about", "offline", "sync", "🎉", "Müller", "naïve", "groceries",
    ]
    private static let firstNames = ["Ada", "Grace", "Alan", "Linus", "Zoë", "Émile", "Hedy", "Katherine",
                                     "Edsger", "Barbara", "Ken", "Margaret", "Dennis", "Radia", "Tim", "Søren"]
    private static let lastNames = ["Lovelace", "Hopper", "Turing", "Torvalds", "Lamarr", "Johnson", "Dijkstra",
                                    "Liskov", "Thompson", "Hamilton", "Ritchie", "Perlman", "Berners-Lee", "Kierkegaard"]

    private mutating func personName() -> String {
        Self.firstNames[rng.below(Self.firstNames.count)] + " " + Self.lastNames[rng.below(Self.lastNames.count)]
    }

    /// Words up to about `length` characters, capitalised.
    private mutating func sentence(_ length: Int) -> String {
        var text = ""
        while text.count < length {
            if !text.isEmpty { text += " " }
            text += Self.words[rng.below(Self.words.count)]
        }
        return text.prefix(1).uppercased() + text.dropFirst()
    }
}

import ChronicleTestSupport
import ChronicleTodoDomain
import Foundation

/// A seeded stream of random user, todo and tag commands (and restorations, as undo
/// appends them), valid and invalid, decided by the
/// domain's deciders against aggregates kept here (as an app would load them).
///
/// A rejected command yields no events, as a rejected command appends nothing.
struct Workload {
    private var random: SeededGenerator
    private var users: [UUID: UserAggregate] = [:]
    private var todos: [UUID: TodoAggregate] = [:]
    private var userIDs: [UUID] = []
    private var todoIDs: [UUID] = []
    private var tags: [UUID: TagAggregate] = [:]
    private var tagIDs: [UUID] = []
    private(set) var accepted = 0
    private(set) var rejected = 0

    /// Names that sort interestingly: case, accents in both Unicode spellings, a prefix of another.
    private static let names = ["Ada", "ada", "Émile", "E\u{301}mile", "Zoë", "Ölaf", "Bob", "Bobby", "  Lin ", "李",
                                "Ada Lovelace", "Grace"]
    private static let titles = ["Pay rent", "Write notes", "Call mom", "Fix bike", "  Read  ", "Plan trip"]
    private static let firstDay = day("2026-03-01")
    /// Tag names that collide without regard to case, and fold beyond lowercasing.
    private static let tagNames = ["Work", "work", "WORK", "Home", "Straße", "STRASSE", "  Errands ", "Σας", "ΣΑΣ"]
    private static let colors = ["#FF8800", "#00aa00", "#123ABC", "#ffffff", "#0A0b0C", "#7f7F7f", "red", "#12345"]

    /// A workload drawn from the run's seed for the test called `test` (``TestSeed``).
    init(test: String) {
        random = TestSeed.generator(for: test)
    }

    /// Decides the next command; returns its events (empty when it is rejected).
    mutating func next() -> [DomainEvent] {
        let events: [DomainEvent]
        do {
            events = try decide()
        } catch {
            rejected += 1
            return []
        }
        accepted += 1
        for event in events { fold(event) }
        return events
    }

    private mutating func decide() throws -> [DomainEvent] {
        switch Int.random(in: 0..<126, using: &random) {
        case 0..<12:
            let age = chance(10) ? Int.random(in: 151...300, using: &random) : Int.random(in: 0...150, using: &random)
            return [try UserCommands.create(id: newID(), name: chance(5) ? "   " : pick(Self.names), age: age)]
        case 12..<20:
            let id = someUser()
            return [try UserCommands.update(users[id] ?? UserAggregate(), id: id,
                                            name: chance(50) ? pick(Self.names) : nil,
                                            age: chance(50) ? Int.random(in: -5...155, using: &random) : nil)]
        case 20..<24:
            let id = someUser()
            let owned = todos.values.compactMap { $0.isLive ? $0.todo : nil }.filter { $0.userId == id }
                .sorted { $0.id.uuidString < $1.id.uuidString }
            return try UserCommands.delete(users[id] ?? UserAggregate(), id: id, liveTodosOfUser: owned)
        case 24..<50:
            let owner: UUID? = chance(40) ? nil : someUser()
            return [try TodoCommands.create(id: newID(), title: chance(3) ? "" : pick(Self.titles), deadline: someDeadline(),
                                            userId: owner, owner: owner.flatMap { users[$0] },
                                            memo: chance(30) ? "memo \(Int.random(in: 0..<9, using: &random))" : nil)]
        case 50..<65:
            let id = someTodo()
            return [try TodoCommands.update(todos[id] ?? TodoAggregate(), id: id,
                                            title: chance(30) ? pick(Self.titles) : nil,
                                            deadline: chance(60) ? someDeadline() : nil,
                                            memo: chance(20) ? "changed" : nil)]
        case 65..<80:
            let id = someTodo()
            return [try TodoCommands.complete(todos[id] ?? TodoAggregate(), id: id)]
        case 80..<88:
            let id = someTodo()
            return [try TodoCommands.reopen(todos[id] ?? TodoAggregate(), id: id)]
        case 88..<100:
            let id = someTodo()
            return [try TodoCommands.delete(todos[id] ?? TodoAggregate(), id: id)]
        case 100..<105:
            let name = pick(Self.tagNames)
            return [try TagCommands.create(id: newID(), name: name, color: pick(Self.colors), nameHolder: holder(of: name))]
        case 105..<108:
            let id = someTag()
            let name: String? = chance(60) ? pick(Self.tagNames) : nil
            return [try TagCommands.update(tags[id] ?? TagAggregate(), id: id, name: name,
                                           color: chance(50) ? pick(Self.colors) : nil, nameHolder: name.flatMap(holder))]
        case 108..<110:
            let id = someTag()
            return [try TagCommands.delete(tags[id] ?? TagAggregate(), id: id)]
        case 110..<116:
            let live = tagIDs.filter { tags[$0]?.isLive == true }
            let todo = someTodo(), tag = !live.isEmpty && chance(80) ? pick(live) : someTag()
            return [try TodoCommands.tag(todos[todo] ?? TodoAggregate(), id: todo, tag: tags[tag] ?? TagAggregate(), tagId: tag)]
        case 120..<123:
            let deleted = todoIDs.filter { id in
                todos[id]?.isDeleted == true && todos[id]?.todo?.userId.map { users[$0]?.isLive == true } != false
            }
            guard !deleted.isEmpty else { throw DomainError.nothingToUndo }
            return [.todoRestored(id: pick(deleted))]
        case 123..<126:
            let deleted = tagIDs.filter { id in tags[id]?.isDeleted == true && holder(of: tags[id]?.tag?.name ?? "") == nil }
            guard !deleted.isEmpty else { throw DomainError.nothingToUndo }
            return [.tagRestored(id: pick(deleted))]
        default:
            let todo = someTodo()
            let tag = chance(70) ? (todos[todo]?.tags.sorted { $0.uuidString < $1.uuidString }.first ?? someTag()) : someTag()
            return [try TodoCommands.untag(todos[todo] ?? TodoAggregate(), id: todo, tag: tags[tag] ?? TagAggregate(), tagId: tag)]
        }
    }

    /// The live tag whose name folds like `name`, as the store's claim would say.
    private func holder(of name: String) -> UUID? {
        let folded = Tag.foldedName(name)
        return tags.first { $0.value.isLive && $0.value.tag.map { Tag.foldedName($0.name) } == folded }?.key
    }

    private mutating func fold(_ event: DomainEvent) {
        switch event {
        case .userCreated, .userUpdated, .userDeleted, .userRestored:
            let id = event.entityID
            if users[id] == nil { userIDs.append(id) }
            users[id, default: UserAggregate()].apply(event)
        case .todoCreated, .todoUpdated, .todoCompleted, .todoReopened, .todoDeleted, .todoRestored, .todoTagged, .todoUntagged:
            let id = event.entityID
            if todos[id] == nil { todoIDs.append(id) }
            todos[id, default: TodoAggregate()].apply(event)
        case .tagCreated, .tagUpdated, .tagDeleted, .tagRestored:
            let id = event.entityID
            if tags[id] == nil { tagIDs.append(id) }
            tags[id, default: TagAggregate()].apply(event)
        }
    }

    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    private mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }

    private mutating func newID() -> UUID {
        let a = random.next(), b = random.next()
        return withUnsafeBytes(of: (a, b)) { bytes in
            UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                        bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        }
    }

    /// Mostly a known user (live or deleted), sometimes one that never existed.
    private mutating func someUser() -> UUID {
        userIDs.isEmpty || chance(5) ? newID() : pick(userIDs)
    }

    private mutating func someTodo() -> UUID {
        todoIDs.isEmpty || chance(5) ? newID() : pick(todoIDs)
    }

    private mutating func someTag() -> UUID {
        tagIDs.isEmpty || chance(5) ? newID() : pick(tagIDs)
    }

    /// A day among three weeks (so days are shared and move often), sometimes not a real date.
    private mutating func someDeadline() -> String {
        chance(3) ? "2026-02-30" : Self.firstDay.adding(days: Int.random(in: 0..<21, using: &random)).description
    }
}

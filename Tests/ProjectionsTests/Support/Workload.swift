import Domain
import Foundation

/// A seeded stream of random user and todo commands, valid and invalid, decided by the
/// domain's deciders against aggregates kept here (as an app would load them).
///
/// A rejected command yields no events, as a rejected command appends nothing.
struct Workload {
    private var random: SeededGenerator
    private var users: [UUID: UserAggregate] = [:]
    private var todos: [UUID: TodoAggregate] = [:]
    private var userIDs: [UUID] = []
    private var todoIDs: [UUID] = []
    private(set) var accepted = 0
    private(set) var rejected = 0

    /// Names that sort interestingly: case, accents in both Unicode spellings, a prefix of another.
    private static let names = ["Ada", "ada", "Émile", "E\u{301}mile", "Zoë", "Ölaf", "Bob", "Bobby", "  Lin ", "李",
                                "Ada Lovelace", "Grace"]
    private static let titles = ["Pay rent", "Write notes", "Call mom", "Fix bike", "  Read  ", "Plan trip"]
    private static let firstDay = day("2026-03-01")

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
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
        switch Int.random(in: 0..<100, using: &random) {
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
        default:
            let id = someTodo()
            return [try TodoCommands.delete(todos[id] ?? TodoAggregate(), id: id)]
        }
    }

    private mutating func fold(_ event: DomainEvent) {
        switch event {
        case .userCreated, .userUpdated, .userDeleted:
            let id = event.entityID
            if users[id] == nil { userIDs.append(id) }
            users[id, default: UserAggregate()].apply(event)
        case .todoCreated, .todoUpdated, .todoCompleted, .todoReopened, .todoDeleted:
            let id = event.entityID
            if todos[id] == nil { todoIDs.append(id) }
            todos[id, default: TodoAggregate()].apply(event)
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

    /// A day among three weeks (so days are shared and move often), sometimes not a real date.
    private mutating func someDeadline() -> String {
        chance(3) ? "2026-02-30" : Self.firstDay.adding(days: Int.random(in: 0..<21, using: &random)).description
    }
}

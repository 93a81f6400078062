import ChronicleTestSupport
import ChronicleSchema
import ChronicleTodoDomain
import Foundation

/// A seeded stream of random user, todo and tag commands (and restorations, as undo
/// appends them), valid and invalid, decided by the todo app's model in memory
/// (``TodoAppMemory``), after the app's own checks of the values (``TodoAppInput``).
///
/// A rejected command yields no events, as a rejected command appends nothing.
struct Workload {
    private var random: SeededGenerator
    private var memory = TodoAppMemory()
    private var userIDs: [UUID] = []
    private var todoIDs: [UUID] = []
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
    mutating func next() -> [TodoAppEvent] {
        let events: [TodoAppEvent]
        do {
            events = try decide()
        } catch {
            rejected += 1
            return []
        }
        accepted += 1
        for event in events { note(event) }
        return events
    }

    private mutating func decide() throws -> [TodoAppEvent] {
        typealias Value = ChronicleModel.FieldValue
        switch Int.random(in: 0..<126, using: &random) {
        case 0..<12:
            let age = chance(10) ? Int.random(in: 151...300, using: &random) : Int.random(in: 0...150, using: &random)
            let name = try TodoAppInput.userName(chance(5) ? "   " : pick(Self.names))
            return try memory.decide("User", newID(), .create(["name": .text(name), "age": .integer(try TodoAppInput.age(age))]))
        case 12..<20:
            let id = someUser()
            var values: [String: Value] = [:]
            if chance(50) { values["name"] = .text(try TodoAppInput.userName(pick(Self.names))) }
            if chance(50) { values["age"] = .integer(try TodoAppInput.age(Int.random(in: -5...155, using: &random))) }
            return try memory.decide("User", id, .update(values))
        case 20..<24:
            return try memory.decide("User", someUser(), .delete)
        case 24..<50:
            var values: [String: Value] = ["title": .text(try TodoAppInput.title(chance(3) ? "" : pick(Self.titles))),
                                           "deadline": .text(try TodoAppInput.deadline(someDeadline()))]
            if !chance(40) { values["userId"] = .text(someUser().uuidString.lowercased()) }
            if chance(30) { values["memo"] = .text("memo \(Int.random(in: 0..<9, using: &random))") }
            return try memory.decide("Todo", newID(), .create(values))
        case 50..<65:
            let id = someTodo()
            var values: [String: Value] = [:]
            if chance(30) { values["title"] = .text(try TodoAppInput.title(pick(Self.titles))) }
            if chance(60) { values["deadline"] = .text(try TodoAppInput.deadline(someDeadline())) }
            if chance(20) { values["memo"] = .text("changed") }
            return try memory.decide("Todo", id, .update(values))
        case 65..<80:
            return try memory.decide("Todo", someTodo(), .update(["isCompleted": .boolean(true)]))
        case 80..<88:
            return try memory.decide("Todo", someTodo(), .update(["isCompleted": .boolean(false)]))
        case 88..<100:
            return try memory.decide("Todo", someTodo(), .delete)
        case 100..<105:
            let name = try TodoAppInput.tagName(pick(Self.tagNames)), color = try TodoAppInput.color(pick(Self.colors))
            return try memory.decide("Tag", newID(), .create(["name": .text(name), "color": .text(color)]))
        case 105..<108:
            let id = someTag()
            var values: [String: Value] = [:]
            if chance(60) { values["name"] = .text(try TodoAppInput.tagName(pick(Self.tagNames))) }
            if chance(50) { values["color"] = .text(try TodoAppInput.color(pick(Self.colors))) }
            return try memory.decide("Tag", id, .update(values))
        case 108..<110:
            return try memory.decide("Tag", someTag(), .delete)
        case 110..<116:
            let live = tagIDs.filter { memory.isShown("Tag", $0) }
            let todo = someTodo(), tag = !live.isEmpty && chance(80) ? pick(live) : someTag()
            return try memory.decide("Todo", todo, .add(field: "tags", member: tag))
        case 120..<123:
            let deleted = todoIDs.filter { memory.state("Todo", $0)?.isDeleted == true }
            guard !deleted.isEmpty else { throw DomainError.nothingToUndo }
            return try memory.decide("Todo", pick(deleted), .restore)
        case 123..<126:
            let deleted = tagIDs.filter { memory.state("Tag", $0)?.isDeleted == true }
            guard !deleted.isEmpty else { throw DomainError.nothingToUndo }
            return try memory.decide("Tag", pick(deleted), .restore)
        default:
            let todo = someTodo()
            let tag = chance(70) ? (memory.state("Todo", todo)?.members(of: "tags").first ?? someTag()) : someTag()
            return try memory.decide("Todo", todo, .remove(field: "tags", member: tag))
        }
    }

    /// Keeps the ids of the entities created, to pick among.
    private mutating func note(_ event: TodoAppEvent) {
        switch event {
        case .userCreated(let id, _, _): userIDs.append(id)
        case .todoCreated(let id, _, _, _, _): todoIDs.append(id)
        case .tagCreated(let id, _, _): tagIDs.append(id)
        default: break
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

@_spi(Operator) import Chronicle
import ChronicleReferee
import ChronicleWire
import ChronicleLog
import Foundation

// What test targets need to put the referee (ChronicleReferee, which knows no product
// module) beside a store: the store's log as the referee reads it, and its models as plain values.

extension RefereeState {
    /// The referee's fold of `log` in its own order: the merge's order for a store that
    /// pulled nothing (decisions made on one store, by any number of processes).
    public static func fold(log: EventLog) throws -> RefereeState {
        fold(try events(of: log))
    }

    /// `log`'s events in its own order, as the referee reads them (`position` is this log's).
    public static func events(of log: EventLog) throws -> [RefereeEvent] {
        var events: [RefereeEvent] = []
        var after: UInt64 = 0
        while true {
            let page = try log.read(after: after, limit: 1000)
            guard let last = page.last else { return events }
            for recorded in page {
                events.append(try RefereeEvent.parse(json: Data(EventJSON.encode(recorded, includePosition: true).utf8)))
            }
            after = last.position
        }
    }

    /// Where the `overwritten` and `deleted` conflicts `store` lists differ from the referee's
    /// for its log and `serverOrder` (one line, or none), and how many it lists.
    public static func conflictProblems(of store: ChronicleStore, serverOrder: [RefereeEvent],
                                        device: String) async throws -> (problems: [String], listed: Int) {
        let listed = try await store.conflicts().filter { $0.kind != RefereeTagRenamed.kind }
            .map { RefereeConflict(stream: $0.stream, kind: $0.kind, detail: $0.detail) }
        let expected = conflicts(of: store.log.deviceID, log: try events(of: store.log), serverOrder: serverOrder)
        guard listed != expected else { return ([], listed.count) }
        let extra = listed.filter { !expected.contains($0) }, missing = expected.filter { !listed.contains($0) }
        return (["device \(device)'s overwritten/deleted conflicts differ from the referee's: lists \(extra), lacks \(missing)"
                 + (extra.isEmpty && missing.isEmpty ? " (same items, another order: \(listed))" : "")], listed.count)
    }
}

// MARK: - A store's models in the referee's terms

extension RefereeState {
    /// What `store` shows, as plain values (the referee's own types).
    public static func shown(by store: ChronicleStore) async throws -> RefereeState {
        func text(_ id: UUID) -> String { id.uuidString.lowercased() }
        var state = RefereeState()
        for user in try await store.users() {
            state.users[text(user.id)] = RefereeUser(id: text(user.id), name: user.name, age: user.age)
        }
        for todo in try await store.todos() {
            state.todos[text(todo.id)] = RefereeTodo(
                id: text(todo.id), title: todo.title, deadline: todo.deadline.description, userId: todo.userId.map(text),
                memo: todo.memo, isCompleted: todo.isCompleted, tags: todo.tags.map(text).sorted())
        }
        for tag in try await store.tags() {
            state.tags[text(tag.id)] = RefereeTag(id: text(tag.id), name: tag.name, color: tag.color)
        }
        for stat in try await store.stats() {
            let date = stat.date.description
            state.stats[date] = RefereeStat(date: date, total: stat.total, completed: stat.completed)
        }
        for conflict in try await store.conflicts() where conflict.kind == RefereeTagRenamed.kind {
            let shownName = state.tags[String(conflict.stream.dropFirst("tag-".count))]?.name ?? "(not live)"
            state.tagRenamed.insert(RefereeTagRenamed(stream: conflict.stream, shownName: shownName))
        }
        return state
    }

    /// One line per list or conflict set where `self` (what `device` shows) is not `expected`.
    public func differences(from expected: RefereeState, device: String) -> [String] {
        let (shown, wanted) = (jsonLists(), expected.jsonLists())
        var problems: [String] = []
        func compare(_ what: String, _ mine: [String], _ theirs: [String]) {
            guard mine != theirs else { return }
            let extra = mine.filter { !theirs.contains($0) }, missing = theirs.filter { !mine.contains($0) }
            problems.append("device \(device)'s \(what) differ from the referee's: shows \(extra), lacks \(missing)"
                            + (extra.isEmpty && missing.isEmpty ? " (same items, another order)" : ""))
        }
        compare("users", shown.users, wanted.users)
        compare("todos", shown.todos, wanted.todos)
        compare("tags", shown.tags, wanted.tags)
        compare("stats", shown.stats, wanted.stats)
        if tagRenamed != expected.tagRenamed {
            problems.append("device \(device)'s tag-renamed conflicts differ from the referee's: "
                            + "shows \(tagRenamed.subtracting(expected.tagRenamed)), lacks \(expected.tagRenamed.subtracting(tagRenamed))")
        }
        return problems
    }
}

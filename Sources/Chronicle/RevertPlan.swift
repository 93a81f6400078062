import ChronicleTodoDomain
import ChronicleLog
import Foundation

/// The compensating batch of an undo or redo, planned step by step: for each step, the
/// events that revert the batches in effect (``Undo/inverse(of:after:)``, newest first), after
/// checking that nothing else changed their entities since.
///
/// The batch is checked as the store's commands are: it appends only if every stream it
/// writes is still at the version read, a restored or renamed tag's name is free, a restored
/// todo's user is live, and a user it deletes has no live todo left (which another device
/// may have added since).
struct RevertPlan {
    let store: ChronicleStore
    let history: UndoHistory
    let redo: Bool
    /// The head when the plan began, read before the history: the plan judges the log as of
    /// it (the streams, the user's todos), and expects each stream at its version then, so
    /// anything committed meanwhile (another process's undo, say) makes the append conflict
    /// and the store plan again, instead of being mistaken for a change that overtook a step.
    let read: UInt64

    private(set) var events: [DomainEvent] = []
    private var expected: [String: UInt64] = [:]
    private var keys: [AppendKey] = []
    /// Batches of the steps this plan reverts: they cancel out once it commits.
    private var reverting: [ClosedRange<UInt64>] = []
    private var users: [UUID: UserAggregate] = [:]
    private var todos: [UUID: TodoAggregate] = [:]
    private var tags: [UUID: TagAggregate] = [:]

    init(store: ChronicleStore, history: UndoHistory, redo: Bool, read: UInt64) {
        self.store = store
        self.history = history
        self.redo = redo
        self.read = read
    }

    /// Adds the events that revert `step`; returns how many.
    mutating func revert(_ step: UndoHistory.Step) async throws -> Int {
        let batches = redo ? Array(step.reverts.suffix(1)) : step.inEffect
        var recorded: [RecordedEvent] = []
        for range in batches {
            recorded += try store.log.read(after: range.lowerBound - 1, limit: Int(range.upperBound - range.lowerBound + 1))
        }
        var streams: [String: [RecordedEvent]] = [:]
        for stream in Set(recorded.map(\.stream)).sorted() {
            let all = try store.log.read(stream: stream).filter { $0.position <= read }
            let last = recorded.last { $0.stream == stream }!.position
            if all.contains(where: { $0.position > last && !cancelsOut($0.position) }) {
                throw DomainError.overtaken(stream: stream, redo: redo)
            }
            streams[stream] = try ranked(all)
            if expected[stream] == nil { expected[stream] = all.last?.version ?? 0 }
        }
        reverting += step.batches
        let before = events.count
        for event in recorded.reversed() {
            let earlier = streams[event.stream, default: []].filter { $0.position < event.position }
            guard let inverse = Undo.inverse(of: try Self.decode(event), after: try earlier.map(Self.decode)) else { continue }
            try await check(inverse)
            events.append(inverse)
        }
        return events.count - before
    }

    /// The tag holding the name key `key` once the keys planned so far are written.
    private func tagHolding(_ key: String) throws -> UUID? {
        for planned in keys.reversed() where planned.key == key {
            switch planned {
            case .claim(_, let stream): return UUID(uuidString: String(stream.suffix(36)))
            case .release: return nil
            case .touch, .unchanged: continue
            }
        }
        return try store.tagHolding(key)
    }

    /// The batch, once every step is planned: each stream expected at the version read.
    func decision(note: HistoryNote) async throws -> Decision {
        try await checkDeletedUsersHaveNoTodos()
        var seen = Set<String>()
        let streams = events.map { event in
            let expectation: ExpectedVersion = seen.insert(event.stream).inserted ? .at(expected[event.stream] ?? 0) : .any
            return StreamAppend(stream: event.stream, expected: expectation, events: [NewEvent(event)])
        }
        return Decision(streams: streams, keys: keys, note: note)
    }

    private func cancelsOut(_ position: UInt64) -> Bool {
        history.cancelsOut(position) || reverting.contains { $0.contains(position) }
    }

    /// Applies `event` to the entities as planned so far, and checks what spans entities.
    private mutating func check(_ event: DomainEvent) async throws {
        let id = event.entityID
        switch event.entityKind {
        case .user:
            var user = try users[id] ?? store.loader.user(id).aggregate
            user.apply(event)
            users[id] = user
        case .todo:
            var todo = try todos[id] ?? store.loader.todo(id, ownerIsLive: true).aggregate
            todo.apply(event)
            todos[id] = todo
            if case .todoTagged(_, let tagId) = event { _ = try tag(tagId).requireLiveTag(id: tagId) }
            if case .todoUntagged(_, let tagId) = event { _ = try tag(tagId).requireLiveTag(id: tagId) }
        case .tag:
            let old = try tag(id)
            var tag = old
            tag.apply(event)
            tags[id] = tag
            let stream = event.stream
            let oldKey = old.isLive ? old.tag.map { ConsistencyKeys.tagName($0.name) } : nil
            let newKey = tag.isLive ? tag.tag.map { ConsistencyKeys.tagName($0.name) } : nil
            if oldKey != newKey {
                // Only the key's holder releases it (see `WriteStep.releaseTagName`).
                if let oldKey, try tagHolding(oldKey) == id { keys.append(.release(oldKey, by: stream)) }
                if let newKey, let name = tag.tag?.name {
                    if let holder = try tagHolding(newKey), holder != id { throw DomainError.duplicateTagName(name) }
                    try await store.refuseShownName(name, except: id)
                    keys.append(.claim(newKey, by: stream))
                }
            }
        }
    }

    private mutating func tag(_ id: UUID) throws -> TagAggregate {
        if let known = tags[id] { return known }
        let loaded = try store.loader.tag(id).aggregate
        tags[id] = loaded
        return loaded
    }

    /// A restored todo's user must be live, and a user this plan deletes must have no live
    /// todo left: one added since (here by a step not undone, or on another device) would
    /// otherwise go with it.
    private func checkDeletedUsersHaveNoTodos() async throws {
        for todo in todos.values where todo.isLive {
            guard let owner = todo.todo?.userId else { continue }
            let user = try users[owner] ?? store.loader.user(owner).aggregate
            if !user.isLive { throw DomainError.userDeleted(owner) }
        }
        let deleted = users.filter { !$0.value.isLive }.map(\.key)
        guard !deleted.isEmpty else { return }
        try await store.projections.wait(until: read)
        for userID in deleted {
            for todo in try store.models.todos(user: userID) where todos[todo.id]?.isLive ?? true {
                throw DomainError.overtaken(stream: DomainEvent.todoStream(todo.id), redo: redo)
            }
        }
    }

    /// The events in the merge's order (a stream with pulled events may differ from the log's).
    private func ranked(_ events: [RecordedEvent]) throws -> [RecordedEvent] {
        guard events.contains(where: { $0.origin != store.log.deviceID }) else { return events }
        let upstream = try store.log.upstreamPositions(of: events.map(\.position))
        return events.sorted {
            MergeRank(upstream: upstream[$0.position], position: $0.position) < MergeRank(upstream: upstream[$1.position], position: $1.position)
        }
    }

    private static func decode(_ recorded: RecordedEvent) throws -> DomainEvent {
        do {
            return try DomainEvent(recorded)
        } catch {
            throw ChronicleError.corruptEvent(position: recorded.position, reason: error.description)
        }
    }
}

private extension TagAggregate {
    func requireLiveTag(id: UUID) throws(DomainError) -> Tag {
        guard let tag, tag.id == id else { throw .unknownTag(id) }
        guard isLive else { throw .tagDeleted(id) }
        return tag
    }
}

import ChronicleTodoDomain
import ChronicleLog
import Foundation

/// Commands decided together and appended as one batch: all of them or none, one undo step.
/// Given to the body of ``ChronicleStore/write(_:)``; each command sees what the ones before
/// it in the step decided (a user created first can be given a todo next).
///
/// ```swift
/// let written = try await store.write { step in
///     let ada = try await step.createUser(name: "Ada", age: 36)
///     return try await step.createTodo(title: "Notes", deadline: "2026-12-01", userId: ada.id)
/// }
/// print(written.value.title, "at position", written.position)
/// ```
///
/// The step is valid only inside the body, and the body may run more than once: when another
/// writer changed what the step read, the store decides the whole step again on fresh state.
/// Keep the body free of other side effects.
public final class WriteStep {
    let store: ChronicleStore
    /// The batch so far: one ``StreamAppend`` per event, in the order the commands decided
    /// them (a stream's first append carries the version read; later ones on the same stream
    /// continue from it, `.any`, since the log judges each after the batch's earlier appends).
    private(set) var decision = Decision(streams: [])
    /// Reads the log with the events staged so far folded in.
    private var loader: EntityLoader
    /// The holder of each name key as this step left it (`.some(nil)`: released here).
    private var holders: [String: String?] = [:]

    init(store: ChronicleStore) {
        self.store = store
        self.loader = store.loader
    }

    /// Whether the step decided any event.
    var isEmpty: Bool { decision.streams.allSatisfy(\.events.isEmpty) }

    // MARK: - Reading as of the log and the step

    /// The user as the log and this step's earlier commands leave it; the version is the
    /// log's (what the batch expects).
    func user(_ id: UUID) throws -> (aggregate: UserAggregate, version: UInt64) {
        try loader.user(id)
    }

    /// The todo as the log and this step leave it (see ``EntityLoader/todo(_:ownerIsLive:)``).
    func todo(_ id: UUID, ownerIsLive: Bool = false) throws -> (aggregate: TodoAggregate, version: UInt64) {
        try loader.todo(id, ownerIsLive: ownerIsLive)
    }

    func tag(_ id: UUID) throws -> (aggregate: TagAggregate, version: UInt64) {
        try loader.tag(id)
    }

    /// The live tag holding a name key, as the log and this step leave it.
    func tagHolding(_ key: String) throws -> UUID? {
        if let holder = holders[key] {
            return holder.flatMap { UUID(uuidString: String($0.suffix(36))) }
        }
        return try store.tagHolding(key)
    }

    /// The ids of todos created in this step.
    var stagedTodoIDs: [UUID] {
        loader.staged.values.flatMap { events in
            events.compactMap { event -> UUID? in
                if case .todoCreated(let id, _, _, _, _) = event { return id }
                return nil
            }
        }
    }

    /// The todo with only its live tags, as read models show it.
    func liveTagged(_ aggregate: TodoAggregate) throws -> Todo? {
        guard var todo = aggregate.todo else { return nil }
        todo.tags = Todo.sortedTagIDs(try aggregate.tags.filter { try tag($0).aggregate.isLive })
        return todo
    }

    // MARK: - Staging

    /// Adds `event` to the batch; `version` is the stream's version as read from the log.
    func stage(_ event: DomainEvent, readAt version: UInt64) {
        loader.staged[event.stream, default: []].append(event)
        let seen = decision.streams.contains { $0.stream == event.stream }
        decision.streams.append(StreamAppend(stream: event.stream, expected: seen ? .any : .at(version), events: [NewEvent(event)]))
    }

    /// Makes the batch require `stream` unchanged since it was read at `version`, appending nothing to it.
    func require(_ stream: String, readAt version: UInt64) {
        guard !decision.streams.contains(where: { $0.stream == stream }) else { return }
        decision.streams.append(StreamAppend(stream: stream, expected: .at(version), events: []))
    }

    /// Releases the name key `key` when the tag `id` holds it. A tag that took a name
    /// another live tag holds here (pulled from a device that created it offline, shown with
    /// " (2)") never held the key: releasing it would conflict with the holder on every try.
    func releaseTagName(_ key: String, of id: UUID, by stream: String) throws {
        if try tagHolding(key) == id { add(.release(key, by: stream)) }
    }

    /// Adds a key to the batch's conditions and effects.
    func add(_ key: AppendKey) {
        decision.keys.append(key)
        switch key {
        case .claim(let name, let stream): holders[name] = .some(stream)
        case .release(let name, _): holders[name] = .some(nil)
        case .touch, .unchanged: break
        }
    }
}

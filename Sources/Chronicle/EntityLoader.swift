import ChronicleTodoDomain
import ChronicleLog
import Foundation

/// Folds one entity's stream into its aggregate, together with the stream version it was read at.
///
/// The events are folded in the merge's order (``MergeRank``: the server's order, then this
/// store's unsent events), so a command decides on the state the read models show, pulled
/// events included. The version is the stream's last in this log, what the append expects.
struct EntityLoader {
    let log: EventLog
    /// Events decided but not appended yet (a ``WriteStep``'s), by stream: folded after the
    /// log's, so later commands of the step see them. The version stays the log's.
    var staged: [String: [DomainEvent]] = [:]

    func user(_ id: UUID) throws -> (aggregate: UserAggregate, version: UInt64) {
        var aggregate = UserAggregate()
        let version = try fold(DomainEvent.userStream(id)) { aggregate.apply($0) }
        return (aggregate, version)
    }

    /// A todo whose user is deleted is not live (the merge's rule): it folds as deleted.
    /// `ownerIsLive` skips reading the user when the caller knows it is live.
    func todo(_ id: UUID, ownerIsLive: Bool = false) throws -> (aggregate: TodoAggregate, version: UInt64) {
        var aggregate = TodoAggregate()
        let version = try fold(DomainEvent.todoStream(id)) { aggregate.apply($0) }
        if !ownerIsLive, aggregate.isLive, let owner = aggregate.todo?.userId, try user(owner).aggregate.isDeleted {
            aggregate.apply(.todoDeleted(id: id))
        }
        return (aggregate, version)
    }

    func tag(_ id: UUID) throws -> (aggregate: TagAggregate, version: UInt64) {
        var aggregate = TagAggregate()
        let version = try fold(DomainEvent.tagStream(id)) { aggregate.apply($0) }
        return (aggregate, version)
    }

    private func fold(_ stream: String, _ apply: (DomainEvent) -> Void) throws -> UInt64 {
        var events = try log.read(stream: stream)
        let version = events.last?.version ?? 0
        if events.contains(where: { $0.origin != log.deviceID }) {
            let upstream = try log.upstreamPositions(of: events.map(\.position))
            events.sort { a, b in
                MergeRank(upstream: upstream[a.position], position: a.position)
                    < MergeRank(upstream: upstream[b.position], position: b.position)
            }
        }
        for recorded in events {
            do {
                apply(try DomainEvent(recorded))
            } catch {
                throw ChronicleError.corruptEvent(position: recorded.position, reason: error.description)
            }
        }
        for event in staged[stream] ?? [] { apply(event) }
        return version
    }
}

extension ExpectedVersion {
    /// The expectation for a stream read at `version` (0 = absent).
    static func at(_ version: UInt64) -> ExpectedVersion { version == 0 ? .noStream : .exact(version) }
}

extension NewEvent {
    /// The stored form of a domain event.
    init(_ event: DomainEvent) {
        self.init(type: event.type, schemaVersion: event.schemaVersion, data: event.encodedData())
    }
}

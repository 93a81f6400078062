import Domain
import EventLog
import Foundation

/// Folds one entity's stream into its aggregate, together with the stream version it was read at.
struct EntityLoader {
    let log: EventLog

    func user(_ id: UUID) throws -> (aggregate: UserAggregate, version: UInt64) {
        var aggregate = UserAggregate()
        let version = try fold(DomainEvent.userStream(id)) { aggregate.apply($0) }
        return (aggregate, version)
    }

    func todo(_ id: UUID) throws -> (aggregate: TodoAggregate, version: UInt64) {
        var aggregate = TodoAggregate()
        let version = try fold(DomainEvent.todoStream(id)) { aggregate.apply($0) }
        return (aggregate, version)
    }

    func tag(_ id: UUID) throws -> (aggregate: TagAggregate, version: UInt64) {
        var aggregate = TagAggregate()
        let version = try fold(DomainEvent.tagStream(id)) { aggregate.apply($0) }
        return (aggregate, version)
    }

    private func fold(_ stream: String, _ apply: (DomainEvent) -> Void) throws -> UInt64 {
        var version: UInt64 = 0
        for recorded in try log.read(stream: stream) {
            do {
                apply(try DomainEvent(type: recorded.type, stream: recorded.stream, data: recorded.data))
            } catch {
                throw ChronicleError.corruptEvent(position: recorded.position, reason: error.description)
            }
            version = recorded.version
        }
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
        self.init(type: event.type, data: event.encodedData())
    }
}

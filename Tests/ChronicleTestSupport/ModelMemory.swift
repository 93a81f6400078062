import ChronicleSchema
import Foundation

/// A store in memory for a model's commands: each is decided by the model's decider on the
/// entities folded so far, and what it decides is folded in. For tests that need a stream of
/// valid and refused decisions without a log (a workload, an oracle's input).
///
/// ```swift
/// var memory = ModelMemory(TodoAppModel.model)
/// let events = try memory.decide("User", id, .create(["name": "Ada", "age": 36]))
/// ```
public struct ModelMemory: ChronicleModel.StateReading {
    /// The entities as the decisions so far leave them.
    public private(set) var snapshot: ChronicleModel.Snapshot
    public private(set) var position: UInt64 = 0
    private var versions: [String: UInt64] = [:]
    private let decider: ChronicleModel.Decider
    private let reader: ChronicleModel.EventReader

    public init(_ model: ChronicleModel) {
        snapshot = ChronicleModel.Snapshot(model)
        decider = ChronicleModel.Decider(model)
        reader = ChronicleModel.EventReader(model)
    }

    /// Decides `action` on entity `id` of `entity` and folds what it appends; returns that.
    /// - throws: the model's ``ChronicleModel/CommandProblem`` when a rule refuses it.
    public mutating func decide(_ entity: String, _ id: UUID, _ action: ChronicleModel.Command.Action) throws -> [ChronicleModel.DecidedEvent] {
        let decision = try decider.decide(ChronicleModel.Command(entity: entity, id: id, action: action), reading: self)
        for event in decision.events {
            let read = try reader.read(type: event.type, stream: event.stream, data: event.data, schemaVersion: event.schemaVersion)
            position += 1
            versions[event.stream, default: 0] += 1
            snapshot.apply(read, rank: ChronicleModel.EventRank(upstream: nil, position: position))
        }
        return decision.events
    }

    public func state(of entity: String, id: UUID) -> ChronicleModel.EntityState? { snapshot.state(of: entity, id: id) }
    public func isShown(_ entity: String, id: UUID) -> Bool { snapshot.shown(entity, id: id) != nil }
    public func holder(of entity: String, field: String, key: String) -> UUID? { holders(of: entity, field: field, key: key).first }

    public func holders(of entity: String, field: String, key: String) -> [UUID] {
        snapshot.holders(of: entity, field: field, key: key)
    }

    public func children(of entity: String, field: String, parent: UUID) -> [ChronicleModel.EntityState] {
        snapshot.states(of: entity).filter { $0.reference(field) == parent }
    }

    public func version(of stream: String) -> UInt64 { versions[stream] ?? 0 }
}

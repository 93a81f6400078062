import ChronicleSchema
import ChronicleTodoDomain
import ChronicleTodoModel
import Foundation

/// The todo app's commands decided in memory by its model (``ModelMemory`` on
/// `TodoAppModel`), their events as the app's `TodoAppEvent`s: a workload's source.
public struct TodoAppMemory {
    public private(set) var memory = ModelMemory(TodoAppModel.model)

    public init() {}

    /// Decides `action` on entity `id` of `entity`; returns the events appended.
    /// - throws: the model's refusal.
    public mutating func decide(_ entity: String, _ id: UUID, _ action: ChronicleModel.Command.Action) throws -> [TodoAppEvent] {
        try memory.decide(entity, id, action).map { event in
            try TodoAppEvent(type: event.type, stream: event.stream, data: event.data, schemaVersion: UInt16(event.schemaVersion))
        }
    }

    /// The entity as folded, deleted or not (nil: never created).
    public func state(_ entity: String, _ id: UUID) -> ChronicleModel.EntityState? { memory.state(of: entity, id: id) }

    /// Whether the entity is shown (live, its user shown).
    public func isShown(_ entity: String, _ id: UUID) -> Bool { memory.isShown(entity, id: id) }
}

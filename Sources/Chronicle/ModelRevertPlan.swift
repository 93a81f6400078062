import ChronicleSchema
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleProjections

/// The compensating batch of an undo or redo, planned step by step: for each entity a step
/// changed, the commands that put it back as it was before (a creation deleted, a deletion
/// restored, fields and sets written back), decided by the model's rules as one
/// ``ChronicleModel/Step``, after checking that nothing else changed the entity since; the
/// batch changes no entity the steps did not.
///
/// Restorations go first, oldest change first (a parent before the children its deletion
/// took along); deletions and updates follow, newest change first (children before parents).
struct ModelRevertPlan {
    let log: EventLog
    let model: ChronicleModel
    let history: UndoHistory
    let redo: Bool
    /// The head when the plan began: streams are judged as of it.
    let read: UInt64
    private(set) var step: ChronicleModel.Step<StoreReading>
    private let reader: ChronicleModel.EventReader
    /// Batches of the steps this plan reverts: they cancel out once it commits.
    private var reverting: [ClosedRange<UInt64>] = []
    /// The streams of the steps this plan reverts.
    private var revertedStreams: Set<String> = []

    init(log: EventLog, reader: ChronicleModel.EventReader, history: UndoHistory, redo: Bool, read: UInt64, reading: StoreReading) {
        self.log = log
        self.model = reader.model
        self.history = history
        self.redo = redo
        self.read = read
        step = ChronicleModel.Step(reader, reading: reading)
        self.reader = reader
    }

    /// Adds the commands that revert `reverted`; returns how many events they append.
    mutating func revert(_ reverted: UndoHistory.Step) throws -> Int {
        let batches = redo ? Array(reverted.reverts.suffix(1)) : reverted.inEffect
        var recorded: [RecordedEvent] = []
        for range in batches {
            recorded += try log.read(after: range.lowerBound - 1, limit: Int(range.upperBound - range.lowerBound + 1))
        }
        var streams: [String] = []
        for event in recorded where !streams.contains(event.stream) { streams.append(event.stream) }
        var backs: [Back] = []
        for stream in streams {
            let all = try log.read(stream: stream).filter { $0.position <= read }
            let first = recorded.first { $0.stream == stream }!.position
            let last = recorded.last { $0.stream == stream }!.position
            if all.contains(where: { $0.position > last && !cancelsOut($0.position) }) {
                throw DomainError.overtaken(stream: stream, redo: redo)
            }
            guard let (before, after) = try states(of: all, before: first, through: last) else { continue }
            let back = commands(back: before, from: after)
            backs.append(Back(restore: back.restore, commands: back.commands, parents: parents(of: before)))
        }
        reverting += reverted.batches
        revertedStreams.formUnion(streams)
        let count = step.decision.events.count
        for back in parentsFirst(backs.filter(\.restore)) { for command in back.commands { try step.decide(command) } }
        for back in backs.reversed() where !back.restore { for command in back.commands { try step.decide(command) } }
        // An undo changes only what its steps changed: a deletion that would take along a child
        // written since (another device's todo of a user whose creation is undone) is refused.
        if let foreign = step.decision.events.dropFirst(count).first(where: { !revertedStreams.contains($0.stream) }) {
            throw DomainError.overtaken(stream: foreign.stream, redo: redo)
        }
        return step.decision.events.count - count
    }

    /// The commands that put one entity back, and the parents whose deletion reaches it.
    private struct Back {
        var restore: Bool
        var commands: [ChronicleModel.Command]
        var parents: [UUID]
        var id: UUID? { commands.first?.id }
    }

    /// The parents of `state` whose deletion reaches it.
    private func parents(of state: ChronicleModel.EntityState?) -> [UUID] {
        guard let state, let entity = model.entity(named: state.entity) else { return [] }
        return entity.fields.compactMap { $0.onParentDeletion == nil ? nil : state.reference($0.name) }
    }

    /// `restorations` with each parent before its children (a user restored before the todos
    /// its deletion took along, whichever order the reverted batch deleted them in); otherwise
    /// in the order given.
    private func parentsFirst(_ restorations: [Back]) -> [Back] {
        let restored = Set(restorations.compactMap(\.id))
        var placed: Set<UUID> = [], ordered: [Back] = [], waiting = restorations
        while !waiting.isEmpty {
            let before = waiting.count
            waiting.removeAll { back in
                guard back.parents.allSatisfy({ !restored.contains($0) || placed.contains($0) }) else { return false }
                ordered.append(back)
                if let id = back.id { placed.insert(id) }
                return true
            }
            // A cycle of references: the rest in the order given.
            if waiting.count == before { ordered += waiting; break }
        }
        return ordered
    }

    private func cancelsOut(_ position: UInt64) -> Bool {
        history.cancelsOut(position) || reverting.contains { $0.contains(position) }
    }

    /// The entity of `events` (one stream, in log order) as it was before position `first`
    /// and as it was after position `last`; nil when the model does not read them.
    private func states(of events: [RecordedEvent], before first: UInt64, through last: UInt64) throws
        -> (before: ChronicleModel.EntityState?, after: ChronicleModel.EntityState)? {
        var prior = ChronicleModel.Snapshot(model), whole = ChronicleModel.Snapshot(model)
        var entity: (name: String, id: UUID)?
        for recorded in events where recorded.position <= last {
            guard let event = try? reader.read(type: recorded.type, stream: recorded.stream, data: recorded.data,
                                                schemaVersion: Int(recorded.schemaVersion)) else { continue }
            entity = (event.entity, event.id)
            if recorded.position < first { prior.apply(event) }
            whole.apply(event)
        }
        guard let entity, let after = whole.state(of: entity.name, id: entity.id) else { return nil }
        return (prior.state(of: entity.name, id: entity.id), after)
    }

    /// The commands that take an entity from `after` back to `before`, and whether they
    /// begin with its restoration.
    func commands(back before: ChronicleModel.EntityState?, from after: ChronicleModel.EntityState)
        -> (restore: Bool, commands: [ChronicleModel.Command]) {
        let (entity, id) = (after.entity, after.id)
        guard let before, !before.isDeleted else {
            // Created (or restored) by the step: deleted again.
            return (false, after.isDeleted ? [] : [.init(entity: entity, id: id, action: .delete)])
        }
        var changed: [String: ChronicleModel.FieldValue] = [:]
        for (name, value) in before.values where after.values[name] != value { changed[name] = value }
        // A value the step gave a field that had none is cleared.
        for (name, _) in after.values where before.values[name] == nil {
            if let field = model.entity(named: entity)?.field(named: name), ChronicleModel.FieldValue.isClearable(field) { changed[name] = .null }
        }
        let update: [ChronicleModel.Command] = changed.isEmpty ? [] : [.init(entity: entity, id: id, action: .update(changed))]
        if after.isDeleted { return (true, [.init(entity: entity, id: id, action: .restore)] + update) }
        return (false, update)
    }
}

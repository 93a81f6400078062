import ChronicleSchema
import ChronicleLog
import Foundation

extension ModelStates {
    /// What storing pulled `events` would change for the keys of unique values, read from the
    /// log alone (no stored entity is needed, so a pull never waits for the stored entities):
    /// each entity with a unique value that they create, update in such a field, delete or
    /// restore, and each restored child of a parent (its parent is not in its restoration's
    /// data), folded from its stream here before and after the pulled events join it in the
    /// merge's order. A child that comes under a parent otherwise is told by
    /// ``parentTouches(pulled:reader:)``, from the event alone.
    ///
    /// - parameter events: the pulled events in the server's order, each at its server
    ///   position (0 when it has none: it then ranks after everything here, in the given order).
    public static func merged(pulled events: [RecordedEvent], log: EventLog, reader: ChronicleModel.EventReader) throws
        -> [(before: ChronicleModel.EntityState?, after: ChronicleModel.EntityState?)] {
        let model = reader.model
        // Only these can change a unique value's key: the other events are not even read.
        var keyedTypes: Set<String> = []
        for entity in model.entities {
            if entity.fields.contains(where: { $0.unique != nil }) {
                keyedTypes.formUnion([entity.events.created, entity.events.updated, entity.events.deleted, entity.events.restored])
            } else if entity.fields.contains(where: { $0.onParentDeletion != nil }) {
                keyedTypes.insert(entity.events.restored)
            }
        }
        var touched: [(entity: String, id: UUID, stream: String)] = []
        var pulledByStream: [String: [(rank: ChronicleModel.EventRank, id: UUID, event: ChronicleModel.Event)]] = [:]
        for (offset, recorded) in events.enumerated() where keyedTypes.contains(recorded.type) {
            guard let event = try? reader.read(type: recorded.type, stream: recorded.stream, data: recorded.data,
                                                schemaVersion: Int(recorded.schemaVersion)) else { continue }
            let rank = recorded.position > 0
                ? ChronicleModel.EventRank(upstream: recorded.position, position: .max)
                : ChronicleModel.EventRank(upstream: nil, position: .max - UInt64(events.count - offset))
            if pulledByStream[recorded.stream] == nil {
                guard mayChangeUniqueKeys(event, model) else { continue }
                touched.append((event.entity, event.id, recorded.stream))
            }
            pulledByStream[recorded.stream, default: []].append((rank, recorded.id, event))
        }
        return try touched.map { entity, id, stream in
            let here = try ranked(try log.read(stream: stream), of: entity, id, log: log, reader: reader)
            var before = ChronicleModel.Snapshot(model)
            for (rank, _, event) in here { before.apply(event, rank: rank) }
            let known = Set(here.map(\.id))
            let merged = (here + (pulledByStream[stream] ?? []).filter { !known.contains($0.id) }).sorted { $0.rank < $1.rank }
            var after = ChronicleModel.Snapshot(model)
            for (rank, _, event) in merged { after.apply(event, rank: rank) }
            return (before.state(of: entity, id: id), after.state(of: entity, id: id))
        }
    }

    /// Whether `event` (of a type ``merged(pulled:log:reader:)`` reads) needs its entity folded:
    /// all but an update that writes no unique value.
    static func mayChangeUniqueKeys(_ event: ChronicleModel.Event, _ model: ChronicleModel) -> Bool {
        guard let entity = model.entity(named: event.entity) else { return false }
        if case .updated(let values) = event.change { return entity.fields.contains { $0.unique != nil && values[$0.name] != nil } }
        return true
    }

    /// The parents' keys pulled `events` touch: each creation or update that names a parent
    /// whose deletion reaches the entity touches that parent's children key, as a local command
    /// would, so that a deletion of the parent decided here meanwhile is decided again. Read
    /// from the events alone; a touch of a parent the merge keeps elsewhere only makes such a
    /// deletion decide once more.
    public static func parentTouches(pulled events: [RecordedEvent], reader: ChronicleModel.EventReader) -> [ChronicleModel.Condition] {
        let model = reader.model
        var types: Set<String> = []
        for entity in model.entities where entity.fields.contains(where: { $0.onParentDeletion != nil }) {
            types.formUnion([entity.events.created, entity.events.updated])
        }
        var touches: [ChronicleModel.Condition] = []
        var seen: Set<ChronicleModel.Condition> = []
        for recorded in events where types.contains(recorded.type) {
            guard let event = try? reader.read(type: recorded.type, stream: recorded.stream, data: recorded.data,
                                                schemaVersion: Int(recorded.schemaVersion)),
                  let entity = model.entity(named: event.entity) else { continue }
            let values: ChronicleModel.FieldValues
            switch event.change {
            case .created(let written), .updated(let written): values = written
            default: continue
            }
            for field in entity.fields {
                guard let touch = ChronicleModel.Decider.parentTouch(of: entity, field, values[field.name], in: model) else { continue }
                if seen.insert(touch).inserted { touches.append(touch) }
            }
        }
        return touches
    }

    /// The events of entity `id` of `entity` among `records` (its stream's, in `log`) that the
    /// model reads, each with its event id and where the merge ranks it as known now, in that
    /// order: what a fold of that one entity applies (a refold, a pull's before and after).
    static func ranked(_ records: [RecordedEvent], of entity: String, _ id: UUID, log: EventLog,
                       reader: ChronicleModel.EventReader) throws
        -> [(rank: ChronicleModel.EventRank, id: UUID, event: ChronicleModel.Event)] {
        let servers = try log.upstreamPositions(of: records.map(\.position))
        return records.compactMap { recorded in
            guard let event = try? reader.read(type: recorded.type, stream: recorded.stream, data: recorded.data,
                                                schemaVersion: Int(recorded.schemaVersion)),
                  event.entity == entity, event.id == id else { return nil }
            return (ChronicleModel.EventRank(upstream: servers[recorded.position], position: recorded.position), recorded.id, event)
        }.sorted { $0.rank < $1.rank }
    }
}

import ChronicleSchema
import ChronicleLog
import Foundation

extension ModelStates {
    /// What storing pulled `events` would change, read from the log alone (no stored entity is
    /// needed, so a pull never waits for the stored entities): each entity they are about
    /// whose change can carry a key (``ChronicleModel/Decider/effects(of:)``: one with a unique
    /// value or a parent, created, deleted, restored, or updated in such a field), folded from
    /// its stream here, before and after the pulled events join it in the merge's order.
    ///
    /// - parameter events: the pulled events in the server's order, each at its server
    ///   position (0 when it has none: it then ranks after everything here, in the given order).
    public static func merged(pulled events: [RecordedEvent], log: EventLog, reader: ChronicleModel.EventReader) throws
        -> [(before: ChronicleModel.EntityState?, after: ChronicleModel.EntityState?)] {
        let model = reader.model
        // Only a keyed entity's creations, updates, deletions and restorations can change a key:
        // the other events are not even read.
        var keyedTypes: Set<String> = []
        for entity in model.entities where entity.fields.contains(where: { $0.unique != nil || $0.onParentDeletion != nil }) {
            keyedTypes.formUnion([entity.events.created, entity.events.updated, entity.events.deleted, entity.events.restored])
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
                guard mayChangeKeys(event, model) else { continue }
                touched.append((event.entity, event.id, recorded.stream))
            }
            pulledByStream[recorded.stream, default: []].append((rank, recorded.id, event))
        }
        return try touched.map { entity, id, stream in
            let here = try ranked(try log.read(stream: stream), log: log, reader: reader)
                .filter { $0.event.entity == entity && $0.event.id == id }
            var before = ChronicleModel.Snapshot(model)
            for (rank, _, event) in here.sorted(by: { $0.rank < $1.rank }) { before.apply(event, rank: rank) }
            let known = Set(here.map(\.id))
            let merged = (here + (pulledByStream[stream] ?? []).filter { !known.contains($0.id) }).sorted { $0.rank < $1.rank }
            var after = ChronicleModel.Snapshot(model)
            for (rank, _, event) in merged { after.apply(event, rank: rank) }
            return (before.state(of: entity, id: id), after.state(of: entity, id: id))
        }
    }

    /// Whether `event` can change a key of its entity: the entity has a unique value or a
    /// parent, and the event creates, deletes or restores it, or writes such a field.
    static func mayChangeKeys(_ event: ChronicleModel.Event, _ model: ChronicleModel) -> Bool {
        guard let entity = model.entity(named: event.entity) else { return false }
        func keyed(_ field: ChronicleModel.Field) -> Bool { field.unique != nil || field.onParentDeletion != nil }
        switch event.change {
        case .created, .deleted, .restored: return entity.fields.contains(where: keyed)
        case .updated(let values): return entity.fields.contains { keyed($0) && values[$0.name] != nil }
        case .set, .added, .removed: return false
        }
    }

    /// The events of `records` (of one stream, here) that the model reads, each with its event
    /// id and where the merge ranks it as known now, in the log's order.
    func ranked(_ records: [RecordedEvent], reader: ChronicleModel.EventReader) throws
        -> [(rank: ChronicleModel.EventRank, id: UUID, event: ChronicleModel.Event)] {
        try Self.ranked(records, log: log, reader: reader)
    }

    /// ``ranked(_:reader:)`` on `log`.
    static func ranked(_ records: [RecordedEvent], log: EventLog, reader: ChronicleModel.EventReader) throws
        -> [(rank: ChronicleModel.EventRank, id: UUID, event: ChronicleModel.Event)] {
        let servers = try log.upstreamPositions(of: records.map(\.position))
        return records.compactMap { recorded in
            guard let event = try? reader.read(type: recorded.type, stream: recorded.stream, data: recorded.data,
                                                schemaVersion: Int(recorded.schemaVersion)) else { return nil }
            return (ChronicleModel.EventRank(upstream: servers[recorded.position], position: recorded.position), recorded.id, event)
        }
    }
}

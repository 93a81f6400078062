import ChronicleSchema
import ChronicleLog
import Foundation

extension ModelStates {
    /// What storing pulled `events` would change: each entity they are about, as stored now
    /// and as the merge would leave it (its stream's events here and the pulled ones, folded in
    /// the merge's order). Call it caught up (``catchUp()``), before the events are stored.
    ///
    /// - parameter events: the pulled events in the server's order, each at its server
    ///   position (0 when it has none: it then ranks after everything here, in the given order).
    public func merged(pulled events: [RecordedEvent]) throws
        -> [(before: ChronicleModel.EntityState?, after: ChronicleModel.EntityState?)] {
        let reader = ChronicleModel.EventReader(model)
        var touched: [(entity: String, id: UUID, stream: String)] = []
        var pulledByStream: [String: [(rank: ChronicleModel.EventRank, id: UUID, event: ChronicleModel.Event)]] = [:]
        for (offset, recorded) in events.enumerated() {
            guard let event = try? reader.read(type: recorded.type, stream: recorded.stream, data: recorded.data,
                                                schemaVersion: Int(recorded.schemaVersion)) else { continue }
            let rank = recorded.position > 0
                ? ChronicleModel.EventRank(upstream: recorded.position, position: .max)
                : ChronicleModel.EventRank(upstream: nil, position: .max - UInt64(events.count - offset))
            if pulledByStream[recorded.stream] == nil { touched.append((event.entity, event.id, recorded.stream)) }
            pulledByStream[recorded.stream, default: []].append((rank, recorded.id, event))
        }
        return try touched.map { entity, id, stream in
            var ranked = try self.ranked(try log.read(stream: stream), reader: reader)
            let here = Set(ranked.map(\.id))
            ranked += (pulledByStream[stream] ?? []).filter { !here.contains($0.id) }
            ranked.sort { $0.rank < $1.rank }
            var fold = ChronicleModel.Snapshot(model)
            for (rank, _, event) in ranked { fold.apply(event, rank: rank) }
            return (try state(of: entity, id: id), fold.state(of: entity, id: id))
        }
    }

    /// The events of `records` (of one stream, here) that the model reads, each with its event
    /// id and where the merge ranks it as known now, in the log's order.
    func ranked(_ records: [RecordedEvent], reader: ChronicleModel.EventReader) throws
        -> [(rank: ChronicleModel.EventRank, id: UUID, event: ChronicleModel.Event)] {
        let servers = try log.upstreamPositions(of: records.map(\.position))
        return records.compactMap { recorded in
            guard let event = try? reader.read(type: recorded.type, stream: recorded.stream, data: recorded.data,
                                                schemaVersion: Int(recorded.schemaVersion)) else { return nil }
            return (ChronicleModel.EventRank(upstream: servers[recorded.position], position: recorded.position), recorded.id, event)
        }
    }
}

import ChronicleTodoDomain
import ChronicleLog
import Foundation
import UUIDText

/// Decodes log events as the merge applies them.
///
/// A replica's log holds its own events and the ones it pulled, in the order they came
/// here; the read models must equal the fold of the server's order with this replica's
/// unsent events on top (``MergeRank``). Folding in log order gives that, but for one case:
/// a pulled event about an entity this replica's own events changed earlier here but that
/// rank after it (not pulled back yet when this one came). Such an event is decoded with
/// its entity's stream so far in the merge's order (``DecodedEvents/Item/refold``): the
/// models forget the entity and fold it again from those. Its own decoded form leaves out
/// the fields the later writes hold (``DomainEvent/without(_:)``), which is what the
/// conflicts are told from.
///
/// The ranks never change their order as pulls go on: an own event not pulled back by the
/// time a pulled event came ranks after it, and when it comes back it does so at a later
/// server position. So the stored models, rebuilt or kept up, and `replay` agree.
struct MergeDecoder {
    let log: EventLog

    /// Decodes `records` (consecutive events of the log).
    func decode(_ records: [RecordedEvent]) throws -> DecodedEvents {
        try decode(records.map { ReadRecord($0, deviceID: log.deviceID) })
    }

    /// Decodes `records` (consecutive events of the log), as read by ``ReadRecord/records(_:of:)``.
    func decode(_ records: [ReadRecord]) throws -> DecodedEvents {
        guard let first = records.first?.position, let last = records.last?.position, first <= last else {
            return DecodedEvents(items: [])
        }
        let upstream = try log.upstreamPositions(in: first...last)
        var streams: [String: [RecordedEvent]] = [:]
        // A pulled event merges only with this replica's own earlier writes to its stream:
        // whether there are any is known first, for every stream at once and without decoding
        // (a device that pulls what others wrote, the usual case, has none): from the log for
        // the events before these, from these records for the rest.
        // No pulled event among these (a device's own log, the usual rebuild): nothing merges.
        var firstOwn: [String: UInt64] = [:]
        if !upstream.isEmpty {
            firstOwn = try log.firstOwnPositions(inStreams: records.lazy
                .filter { !$0.isOwn && upstream[$0.position] != nil }.map(\.stream), before: first)
            for record in records where record.isOwn && firstOwn[record.stream] == nil {
                firstOwn[record.stream] = record.position
            }
        }
        var items: [DecodedEvents.Item] = []
        items.reserveCapacity(records.count)
        for record in records {
            let rank = MergeRank(upstream: upstream[record.position], position: record.position)
            var item = DecodedEvents.Item(position: record.position, event: record.event, rank: rank)
            if let event = item.event, !record.isOwn, let server = rank.upstream,
               let first = firstOwn[record.stream], first < record.position {
                let recorded = try record.recorded(from: log)
                let before = try earlier(in: recorded.stream, than: record.position, &streams)
                try merge(event, recorded, server: server, before: before, into: &item)
            }
            items.append(item)
        }
        return DecodedEvents(items: items)
    }

    static func domainEvent(_ recorded: RecordedEvent) -> DomainEvent? {
        try? DomainEvent(recorded)
    }

    /// The events of `stream` before `position` (one read of the stream per batch).
    private func earlier(in stream: String, than position: UInt64,
                         _ streams: inout [String: [RecordedEvent]]) throws -> ArraySlice<RecordedEvent> {
        let events: [RecordedEvent]
        if let known = streams[stream] {
            events = known
        } else {
            events = try log.read(stream: stream)
            streams[stream] = events
        }
        let end = events.firstIndex { $0.position >= position } ?? events.endIndex
        return events[..<end]
    }

    /// Overrules what of `event` (pulled, at server position `server`) this replica's own
    /// later-ranked events hold, and notes what it overrules of this replica's writes.
    private func merge(_ event: DomainEvent, _ recorded: RecordedEvent, server: UInt64,
                       before: ArraySlice<RecordedEvent>, into item: inout DecodedEvents.Item) throws {
        let own = before.filter { $0.origin == log.deviceID }
        guard !own.isEmpty else { return }
        let ranks = try log.upstreamPositions(of: before.lazy.map(\.position))
        var held = Set<MergeField>()   // written by own events that rank after this one
        var unseenWrites = 0           // own writes the deleting device cannot have seen
        if own.contains(where: { (ranks[$0.position] ?? .max) > server }) {
            item.refold = (before + [recorded])
                .map { DecodedEvents.Item(position: $0.position, event: Self.domainEvent($0),
                                          rank: MergeRank(upstream: $0.position == recorded.position ? server : ranks[$0.position], position: $0.position)) }
                .sorted { $0.rank < $1.rank }
        }
        for event in own {
            guard let decoded = Self.domainEvent(event), !decoded.writtenFields.isEmpty else { continue }
            let ranksAfter = (ranks[event.position] ?? .max) > server
            if ranksAfter { held.formUnion(decoded.writtenFields) }
            if ranksAfter || event.timestampMilliseconds >= recorded.timestampMilliseconds { unseenWrites += 1 }
        }
        let stream = recorded.stream
        // A pulled event that meets its entity deleted changes nothing, so it overrules nothing.
        let entity = Self.entity(before: before, below: server, upstream: ranks)
        switch event {
        case .userDeleted, .todoDeleted, .tagDeleted:
            if unseenWrites > 0, !entity.deleted {
                item.conflicts.append(MergeConflict(
                    stream: stream, kind: "deleted",
                    detail: "\(unseenWrites) change\(unseenWrites == 1 ? "" : "s") made here went with its deletion on device \(recorded.origin)"))
            }
        default:
            break
        }
        if !held.isEmpty {
            if let kept = event.without(held) { item.event = kept } else { item.overruled = true }
        }
        // A field this replica wrote last (in the merge's order) that the pulled event now
        // overwrites, although the pulled write was made earlier by its device's clock: the
        // other device could not have seen this one's.
        for field in (item.overruled || entity.deleted ? [] : item.event?.writtenFields ?? []) {
            guard let last = entity.writers[field],
                  last.origin == log.deviceID, last.timestampMilliseconds >= recorded.timestampMilliseconds else { continue }
            item.conflicts.append(MergeConflict(
                stream: stream, kind: "overwritten",
                detail: "\(field.label) written here at \(Timestamp.format(milliseconds: last.timestampMilliseconds)) lost to an earlier write from device \(recorded.origin)"))
        }
    }

    /// The entity of `before`'s stream in the merge's order just before server position
    /// `server`: whether it is deleted, and the event whose write each field holds (a write
    /// that met a deletion wrote nothing; a restoration brings back the writers of its deletion).
    private static func entity(before: ArraySlice<RecordedEvent>, below server: UInt64,
                               upstream: [UInt64: UInt64]) -> (deleted: Bool, writers: [MergeField: RecordedEvent]) {
        let ranked = before.compactMap { event in upstream[event.position].flatMap { $0 < server ? ($0, event) : nil } }
            .sorted { $0.0 < $1.0 }
        var deleted = false
        var writers: [MergeField: RecordedEvent] = [:]
        for (_, recorded) in ranked {
            guard let event = domainEvent(recorded) else { continue }
            switch event {
            case .userDeleted, .todoDeleted, .tagDeleted: deleted = true
            case .userRestored, .todoRestored, .tagRestored: deleted = false
            default: if !deleted { for field in event.writtenFields { writers[field] = recorded } }
            }
        }
        return (deleted, writers)
    }
}

extension MergeField {
    /// The field's name in the JSON of its entity (`isCompleted` for completion, `tags` for a tag).
    var label: String {
        switch self {
        case .name: "name"
        case .age: "age"
        case .title: "title"
        case .deadline: "deadline"
        case .memo: "memo"
        case .completion: "isCompleted"
        case .color: "color"
        case .tag(let id): "tag \(id.lowercasedString)"
        }
    }
}

/// The ranks of events already in the log, looked up when a projection needs them
/// (the tags projection orders colliding names by the writes that gave them).
struct MergeRanks: Sendable {
    let log: EventLog

    func ranks(of positions: [UInt64]) throws -> [UInt64: MergeRank] {
        let upstream = try log.upstreamPositions(of: positions)
        return Dictionary(positions.map { ($0, MergeRank(upstream: upstream[$0], position: $0)) }, uniquingKeysWith: { first, _ in first })
    }
}

extension DomainEvent {
    /// Decodes a stored event, upcasting its data from the schema version its record says.
    public init(_ recorded: RecordedEvent) throws(DomainError) {
        try self.init(type: recorded.type, stream: recorded.stream, data: recorded.data, schemaVersion: recorded.schemaVersion)
    }

    /// Decodes a stored event read in place, as ``init(_:)-(RecordedEvent)`` does.
    init(_ view: RecordView) throws(DomainError) {
        try self.init(type: view.type, stream: view.stream, data: view.data, schemaVersion: view.schemaVersion)
    }
}

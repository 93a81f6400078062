import ChronicleSchema
import ChronicleLog
import Foundation

/// Any app's entities and aggregates as of a position, folded in memory from the log by the
/// model alone (``ChronicleModel/Snapshot``): what the CLI's generic `list` and `show` read.
///
/// ```swift
/// let replayed = try ModelReplay.snapshot(log: log, model: model)
/// replayed.snapshot.shown("Note")
/// ```
///
/// Events are folded in the merge's order (the server's order, then this replica's unsent
/// events: ``ChronicleModel/EventRank``), which is what the stored models equal: in the log's
/// order, except that an event ranked before one its entity has folded already (a pulled
/// event before this replica's unsent one) folds that entity again from its stream, in rank
/// order, as the stored models do. The stored models are not touched. Memory grows with the
/// entities, not with the events.
public enum ModelReplay {
    /// The fold, and what could not be read.
    public struct Result: Sendable {
        /// The position replayed up to (included).
        public var position: UInt64
        public var snapshot: ChronicleModel.Snapshot
        /// Events read.
        public var events: UInt64
        /// The events the model cannot read (an unknown type, a value of the wrong type, a
        /// newer shape), with the first problem's line: they are kept in the log, not shown.
        public var unread: UInt64
        public var firstProblem: String?
        /// Per stream, the version of its last event read (what a decision read it at); empty when
        /// the fold was made without (`keepingVersions: false`).
        public var versions: [String: UInt64] = [:]
    }

    /// Folds events 1 through `position` (the head by default) under `model`.
    /// - parameter keepingVersions: whether ``Result/versions`` is filled (what a decision on the
    ///   fold reads); a caller that only shows the fold leaves it empty.
    /// - throws: ``ProjectionError/beyondHead(position:head:)`` when `position` is past the log's end.
    public static func snapshot(log: EventLog, model: ChronicleModel, until position: UInt64? = nil,
                                keepingVersions: Bool = true) throws -> Result {
        let head = try log.head()
        let position = position ?? head
        guard position <= head else { throw ProjectionError.beyondHead(position: position, head: head) }
        let reader = ChronicleModel.EventReader(model)
        var result = Result(position: position, snapshot: ChronicleModel.Snapshot(model), events: 0, unread: 0)
        // Per entity (by place), the rank of the last event folded into each of its entities.
        var folded = [[UUID: ChronicleModel.EventRank]](repeating: [:], count: model.entities.count)
        var last: UInt64 = 0
        while last < position {
            let chunk = try log.read(after: last, limit: Int(min(position - last, 4096)), maxBytes: EventLog.defaultBatchBytes)
            guard let first = chunk.first?.position, let end = chunk.last?.position else { break }
            let upstream = try log.upstreamPositions(in: first...end)
            for recorded in chunk where recorded.position <= position {
                result.events += 1
                if keepingVersions {
                    result.versions[recorded.stream] = max(result.versions[recorded.stream] ?? 0, recorded.version)
                }
                let (event, place): (ChronicleModel.Event, Int)
                do {
                    (event, place) = try reader.readPlaced(type: recorded.type, stream: recorded.stream, data: recorded.data,
                                                           schemaVersion: Int(recorded.schemaVersion))
                } catch {
                    result.unread += 1
                    if result.firstProblem == nil { result.firstProblem = "event \(recorded.position): \(error.description)" }
                    continue
                }
                let rank = ChronicleModel.EventRank(upstream: upstream[recorded.position], position: recorded.position)
                if let previous = folded[place][event.id], rank < previous {
                    folded[place][event.id] = try refold(event.entity, event.id, stream: recorded.stream, through: recorded.position,
                                                         log: log, reader: reader, into: &result.snapshot)
                } else {
                    result.snapshot.apply(event, place: place, rank: rank)
                    folded[place][event.id] = rank
                }
            }
            last = end
        }
        return result
    }

    /// Folds entity `id` of `entity` again from the events of `stream` up to `position`, in rank
    /// order; returns the rank of the last. Events the model cannot read were counted when first read.
    private static func refold(_ entity: String, _ id: UUID, stream: String, through position: UInt64, log: EventLog,
                               reader: ChronicleModel.EventReader, into snapshot: inout ChronicleModel.Snapshot) throws
        -> ChronicleModel.EventRank {
        let ranked = try ModelStates.ranked(try log.read(stream: stream).filter { $0.position <= position }, of: entity, id,
                                            log: log, reader: reader)
        snapshot.forget(entity: entity, id: id)
        for (rank, _, event) in ranked { snapshot.apply(event, rank: rank) }
        return ranked.last?.rank ?? ChronicleModel.EventRank(upstream: nil, position: position)
    }
}

extension ModelReplay.Result: ChronicleModel.StateReading {
    // What a command decides on, read from the fold (for tools: each lookup scans an entity's states).

    public func state(of entity: String, id: UUID) -> ChronicleModel.EntityState? {
        snapshot.state(of: entity, id: id)
    }

    public func isShown(_ entity: String, id: UUID) -> Bool {
        snapshot.shown(entity, id: id) != nil
    }

    public func holder(of entity: String, field: String, key: String) -> UUID? {
        holders(of: entity, field: field, key: key).first
    }

    public func holders(of entity: String, field: String, key: String) -> [UUID] {
        snapshot.holders(of: entity, field: field, key: key)
    }

    public func children(of entity: String, field: String, parent: UUID) -> [ChronicleModel.EntityState] {
        snapshot.states(of: entity).filter { $0.reference(field) == parent }
    }

    public func version(of stream: String) -> UInt64 {
        versions[stream] ?? 0
    }
}

import ChronicleTodoDomain
import ChronicleLog
import Foundation

/// The read models as of a past position, built in memory from the log.
///
/// ```swift
/// let then = try Replay.snapshot(log: log, until: 120)
/// then.sortedTodos      // the todos as they were after event 120
/// ```
///
/// The stored models are not touched. Memory grows with the number of live entities
/// at `position`, not with the log.
public enum Replay {
    /// Folds events 1 through `position` into a ``DomainSnapshot``, merged as the stored
    /// models are (see ``MergeDecoder``).
    ///
    /// Events of unknown types or with undecodable data are skipped, as the stored projections do.
    /// - throws: ``ProjectionError/beyondHead(position:head:)`` when `position` is past the log's end.
    public static func snapshot(log: EventLog, until position: UInt64) throws -> DomainSnapshot {
        try result(log: log, until: position).snapshot
    }

    /// ``snapshot(log:until:)`` with the number of events read and skipped.
    public static func result(log: EventLog, until position: UInt64) throws -> ReplayResult {
        let head = try log.head()
        guard position <= head else { throw ProjectionError.beyondHead(position: position, head: head) }
        var result = ReplayResult(position: position, snapshot: DomainSnapshot(), events: 0, skippedEvents: 0)
        var last: UInt64 = 0
        while last < position {
            guard let chunk = try LogPrefetcher.read(log, after: last, limit: Int(min(position - last, 4096)),
                                                     maxBytes: EventLog.defaultBatchBytes) else { break }
            for item in chunk.events.items {
                if item.kind == nil { result.skippedEvents += 1 }
                result.snapshot.apply(item)
            }
            result.events += UInt64(chunk.count)
            last = chunk.last
        }
        return result
    }
}

/// The models as of a position, and what it took to build them.
public struct ReplayResult: Sendable, Equatable {
    /// The position replayed up to (included).
    public var position: UInt64
    /// Users, todos and stats as of `position`.
    public var snapshot: DomainSnapshot
    /// Events read.
    public var events: UInt64
    /// Events skipped (unknown type or undecodable data).
    public var skippedEvents: UInt64
}

import ChronicleSchema
import ChronicleLog
import Foundation

/// Appends what a model's command decided (``ChronicleModel/Decision``) as one batch: each
/// stream at the version the decision read it at, its conditions as the log's append keys, so
/// the model's rules hold against every process writing the store.
///
/// For tools (the CLI's generic `create`, `update`, `delete`, `restore`); the keys are the
/// ones the todo app's commands write, so both hold each other's decisions.
@_spi(Operator) public enum ModelAppend {
    /// Appends `decision` to `log`.
    /// - throws: ``ChronicleError/conflict(_:)`` when a stream or key changed since the
    ///   decision read it (nothing is appended then), or what the log threw.
    public static func append(_ decision: ChronicleModel.Decision, to log: EventLog, note: [UInt8]? = nil) async throws -> AppendResult {
        // The events in the order decided (a tag created before a todo is tagged with it); a
        // stream's first append expects the version read, its later ones follow it (`.any`: the
        // log judges each after the batch's earlier appends).
        var appends: [StreamAppend] = []
        var seen: Set<String> = []
        for event in decision.events {
            let new = NewEvent(type: event.type, schemaVersion: UInt16(clamping: event.schemaVersion), data: event.data)
            if appends.last?.stream == event.stream {
                appends[appends.count - 1].events.append(new)
            } else if seen.insert(event.stream).inserted {
                let version = decision.expectedVersions[event.stream] ?? 0
                appends.append(StreamAppend(stream: event.stream, expected: version == 0 ? .noStream : .exact(version), events: [new]))
            } else {
                appends.append(StreamAppend(stream: event.stream, expected: .any, events: [new]))
            }
        }
        // A stream the decision read but appends nothing to (a set's new member) must still be
        // as read: a member deleted meanwhile fails the batch.
        for (stream, version) in decision.expectedVersions.sorted(by: { $0.key < $1.key })
        where !seen.contains(stream) {
            appends.append(StreamAppend(stream: stream, expected: version == 0 ? .noStream : .exact(version), events: []))
        }
        return try await ChronicleError.mapping {
            // An entity releases a unique value's key only when it holds it: after a merge two
            // live entities may show one value (`Work`, `Work (2)`), and only the first holds it.
            // A key it claims earlier in the same batch (a step that renames, then deletes) it holds.
            var claimedHere: Set<String> = []
            let conditions = try decision.conditions.filter { condition in
                switch condition {
                case .claim(let key, let owner):
                    claimedHere.insert(owner + "\u{0}" + key)
                    return true
                case .release(let key, let owner):
                    if claimedHere.contains(owner + "\u{0}" + key) { return true }
                    return try log.holder(of: ConsistencyKeys.fitted(key)) == owner
                default:
                    return true
                }
            }
            return try await log.append(appends, keys: keys(conditions), note: note)
        }
    }

    /// The log's keys for a model's conditions (a key too long for the log named by its hash).
    static func keys(_ conditions: [ChronicleModel.Condition]) -> [AppendKey] {
        conditions.map { condition -> AppendKey in
            switch condition {
            case .claim(let key, let owner): .claim(ConsistencyKeys.fitted(key), by: owner)
            case .release(let key, let owner): .release(ConsistencyKeys.fitted(key), by: owner)
            case .touch(let key): .touch(ConsistencyKeys.fitted(key))
            case .unchanged(let key, let since): .unchanged(ConsistencyKeys.fitted(key), since: since)
            }
        }
    }
}

import Crypto
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import UUIDText

/// What a command decided: the events to append, and the keys that make the decision's
/// reads part of the append's condition (see `AppendKey`).
struct Decision {
    var streams: [StreamAppend]
    var keys: [AppendKey] = []
    /// What the undo history notes of the batch; nil: a command (of the current undo group).
    var note: HistoryNote?
}

/// The names of the keys the store's commands condition on. One place, so that a writer
/// and the deciders that must notice it agree.
enum ConsistencyKeys {
    /// Touched by every event that gives a user a todo; a user's deletion, which read the
    /// user's todos, is conditioned on it being unchanged.
    static func todosOfUser(_ userID: String) -> String { "user-\(userID)/todos" }

    /// Claimed by the live tag that has a name (case-folded); released when it is renamed
    /// or deleted. A folded name too long for a key is named by its SHA-256.
    static func tagName(_ name: String) -> String {
        fitted("tag-name:" + Tag.foldedName(name))
    }

    /// `key` when it fits a key (``AppendKey/maxKeyBytes``), else named by what follows its first
    /// colon's SHA-256: `tag-name:<long name>` → `tag-name-sha256:<hex>`.
    static func fitted(_ key: String) -> String {
        guard key.utf8.count > AppendKey.maxKeyBytes, let colon = key.firstIndex(of: ":") else { return key }
        let rest = key[key.index(after: colon)...]
        return key[..<colon] + "-sha256:" + SHA256.hash(data: Data(rest.utf8)).map { byte in
            String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

extension ConsistencyKeys {
    /// The types of the events whose key effects ``effects(ofPulled:log:loader:)`` writes (the
    /// cases its switch handles): the others are neither looked up nor decoded.
    static let typesWithEffects: Set<String> = ["TodoCreated", "TagCreated", "TagUpdated", "TagDeleted", "TagRestored"]

    /// The key effects of pulled events, as the store's commands would have written them:
    /// a todo created for a user touches the user's key, a tag created claims its name, a
    /// rename moves the claim, a deletion releases it. Events already in the log (this store's
    /// own, coming back) have had theirs. Read against the log before the events are stored,
    /// and folded in order, so a page creating and renaming a tag claims its last name.
    static func effects(ofPulled events: [RecordedEvent], log: EventLog, loader: EntityLoader) throws -> [AppendKey] {
        var liveNames: [UUID: String?] = [:]   // a tag's live name as of the events so far (nil: not live)
        func liveName(_ id: UUID) throws -> String? {
            if let known = liveNames[id] { return known }
            let aggregate = try loader.tag(id).aggregate
            return aggregate.isLive ? aggregate.tag?.name : nil
        }
        var keys: [AppendKey] = []
        for recorded in events where typesWithEffects.contains(recorded.type) {
            guard try log.event(id: recorded.id) == nil, let event = try? DomainEvent(recorded) else { continue }
            switch event {
            case .todoCreated(_, _, _, let userId?, _):
                keys.append(.touch(todosOfUser(userId.lowercasedString)))
            case .tagCreated(let id, let name, _):
                guard try liveName(id) == nil else { continue }
                keys.append(.claim(tagName(name), by: event.stream))
                liveNames[id] = .some(name)
            case .tagUpdated(let id, let name?, _):
                guard let old = try liveName(id) else { continue }
                keys += [.release(tagName(old), by: event.stream), .claim(tagName(name), by: event.stream)]
                liveNames[id] = .some(name)
            case .tagDeleted(let id):
                guard let old = try liveName(id) else { continue }
                keys.append(.release(tagName(old), by: event.stream))
                liveNames[id] = .some(nil)
            case .tagRestored(let id):
                guard try liveName(id) == nil, let name = try loader.tag(id).aggregate.tag?.name else { continue }
                keys.append(.claim(tagName(name), by: event.stream))
                liveNames[id] = .some(name)
            default:
                continue
            }
        }
        return keys
    }
}

import Foundation
import ChronicleLMDB

/// Checks and writes an append's ``AppendKey``s in the writer's transaction.
enum KeyConditions {
    /// Refuses malformed keys before the batch is queued.
    static func validate(_ keys: [AppendKey]) throws(EventLogError) {
        for operation in keys {
            let bytes = operation.key.utf8.count
            guard bytes > 0, bytes <= AppendKey.maxKeyBytes else {
                throw .invalidEvent("a key must be 1…\(AppendKey.maxKeyBytes) bytes of UTF-8 (got \(bytes))")
            }
            switch operation {
            case .claim(_, let owner), .release(_, let owner):
                guard !owner.isEmpty else { throw .invalidEvent("the owner of key '\(operation.key)' is empty") }
            case .unchanged, .touch:
                break
            }
        }
    }

    /// The keys touched by the appends of one group commit, by last position, written as one
    /// `touch-log` entry when the group ends (``TouchIndex``).
    struct Touches {
        private var pending: [String: UInt64] = [:]

        mutating func record(_ key: String, at position: UInt64) { pending[key] = position }

        /// The position of the key's last touch in this group, if any.
        func position(of key: String) -> UInt64? { pending[key] }

        func write(_ databases: LogDatabases, _ txn: Transaction) throws {
            guard let entry = TouchIndex.entry(pending) else { return }
            try txn.put(databases.touchLog, key: entry.key, value: entry.value, flags: .append)
        }
    }

    /// Throws ``EventLogError/keyConflict(key:reason:)`` for the first condition that does not hold,
    /// judged on the log as `snapshot` sees it, with the group's earlier touches on top.
    static func check(_ keys: [AppendKey], _ touches: Touches, _ index: TouchIndex, _ snapshot: TouchIndex.Snapshot,
                      _ databases: LogDatabases, _ txn: Transaction) throws {
        for operation in keys {
            switch operation {
            case .unchanged(let key, let since):
                if let touched = try touches.position(of: key) ?? index.lastTouch(of: key, in: snapshot, txn), touched > since {
                    throw EventLogError.keyConflict(key: key, reason: "touched at position \(touched), after \(since)")
                }
            case .claim(let key, let owner), .release(let key, let owner):
                if let holder = try holder(key, databases, txn), holder != owner {
                    // A batch may claim a key its holder releases in the same batch: a folder
                    // renamed, its old name given to another.
                    if case .claim = operation, keys.contains(.release(key, by: holder)) { continue }
                    throw EventLogError.keyConflict(key: key, reason: "held by '\(holder)'")
                }
            case .touch:
                break
            }
        }
    }

    /// Writes the effects of a batch whose last event is at `position`, in the batch's order: a
    /// claim takes the key, a release frees it only from its owner. So a batch may release a
    /// key and claim it again, hand a key from its holder to another entity in either order,
    /// or claim a key and release it (a step that renames an entity, then deletes it).
    static func apply(_ keys: [AppendKey], at position: UInt64, _ touches: inout Touches,
                      _ databases: LogDatabases, _ txn: Transaction) throws {
        for operation in keys {
            switch operation {
            case .release(let key, let owner):
                if try holder(key, databases, txn) == owner { _ = try txn.delete(databases.claims, key: Array(key.utf8)) }
            case .claim(let key, let owner):
                try txn.put(databases.claims, key: Array(key.utf8), value: Array(owner.utf8))
            case .touch(let key):
                touches.record(key, at: position)
            case .unchanged:
                break
            }
        }
    }

    /// The effects of events already decided elsewhere (an ingest): they are stored whatever
    /// the keys say, so nothing is refused. A touch is recorded; a claim is taken only while
    /// the key is free or already the owner's; a release frees only the owner's key.
    static func applyTaken(_ keys: [AppendKey], at position: UInt64, _ touches: inout Touches,
                           _ databases: LogDatabases, _ txn: Transaction) throws {
        for operation in keys {
            switch operation {
            case .release(let key, let owner):
                if try holder(key, databases, txn) == owner { _ = try txn.delete(databases.claims, key: Array(key.utf8)) }
            case .claim(let key, let owner):
                if try holder(key, databases, txn) == nil {
                    try txn.put(databases.claims, key: Array(key.utf8), value: Array(owner.utf8))
                }
            case .touch(let key):
                touches.record(key, at: position)
            case .unchanged:
                break
            }
        }
    }

    static func holder(_ key: String, _ databases: LogDatabases, _ txn: Transaction) throws -> String? {
        try txn.get(databases.claims, key: Array(key.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension EventLog {
    /// The position of the last batch that touched `key`, or `nil` (see ``AppendKey/touch(_:)``).
    public func lastTouch(of key: String) throws -> UInt64? {
        try withRead { txn in try touchIndex.lastTouch(of: key, in: try touchIndex.snapshot(txn), txn) }
    }

    /// Who holds the unique `key`, or `nil` when it is free (see ``AppendKey/claim(_:by:)``).
    public func holder(of key: String) throws -> String? {
        try withRead { txn in try KeyConditions.holder(key, databases, txn) }
    }
}

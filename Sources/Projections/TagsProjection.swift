import Domain
import Foundation
import LMDB

/// Live tags by id (`tags`), and the name index the list is read from (`tags.by-name`,
/// keyed by the case-folded name, so "work" and "Work" sort together).
struct TagsProjection: Projection {
    static let name = ProjectionName.tags
    static let version: UInt32 = 1
    static let databaseNames = ["tags", "tags.by-name"]

    /// The fold: the tag left after `event`, given the live tag before it (nil: none).
    ///
    /// The rules of ``DomainSnapshot``: a creation of a live id, and an update of an id
    /// that is not live, change nothing; a deletion removes.
    static func fold(_ event: DomainEvent, _ tag: Tag?) -> Tag? {
        switch event {
        case .tagCreated(let id, let name, let color):
            return tag ?? Tag(id: id, name: name, color: color)
        case .tagUpdated(_, let name, let color):
            guard var tag else { return nil }
            if let name { tag.name = name }
            if let color { tag.color = color }
            return tag
        case .tagDeleted:
            return nil
        default:
            return tag
        }
    }

    private let txn: Transaction
    private let byID: Database
    private let byName: Database
    private var touched = TouchedEntities<Tag>()

    init(txn: Transaction, databases: [Database]) {
        self.txn = txn
        byID = databases[0]
        byName = databases[1]
    }

    mutating func apply(_ event: DomainEvent, at position: UInt64) throws {
        switch event {
        case .tagCreated, .tagUpdated, .tagDeleted: break
        default: return
        }
        let (txn, byID) = (txn, byID)
        try touched.fold(event.entityID, at: position, load: { try Self.load(event.entityID, txn: txn, byID: byID) }) {
            Self.fold(event, $0)
        }
    }

    mutating func finish(changes: inout [ReadModelChange]?) throws {
        var key = [UInt8](), value = [UInt8]()
        var membershipChanged: UInt64?
        for (id, entry) in touched.sorted {
            let old = entry.original, new = entry.current
            if old == new { continue }
            let renamed = !(old?.name).sameBytes(as: new?.name)
            if let old, renamed {
                ModelCodec.nameKey(Tag.foldedName(old.name), id: id, into: &key)
                try txn.delete(byName, key: key)
            }
            guard let new else {
                try txn.delete(byID, key: withUnsafeBytes(of: id.uuid) { Array($0) })
                changes?.append(.tagRemoved(id, position: entry.position))
                membershipChanged = max(membershipChanged ?? 0, entry.position)
                continue
            }
            if old == nil { membershipChanged = max(membershipChanged ?? 0, entry.position) }
            if renamed {
                ModelCodec.nameKey(Tag.foldedName(new.name), id: id, into: &key)
                try txn.putIndexEntry(byName, key: key)
            }
            ModelCodec.encode(new, into: &value)
            try withUnsafeBytes(of: id.uuid) { k in
                try value.withUnsafeBytes { v in try txn.put(byID, key: k, value: v) }
            }
            changes?.append(.tag(new, position: entry.position))
        }
        // A todo shows only its live tags: a tag that came or went changes todos this
        // projection does not itemize.
        if let membershipChanged { changes?.append(.invalidated(.todos, position: membershipChanged)) }
    }

    static func load(_ id: UUID, txn: Transaction, byID: Database) throws -> Tag? {
        try withUnsafeBytes(of: id.uuid) { key in
            try txn.get(byID, key: key).map { bytes in try ModelCodec.decodeTag(id: id, bytes) }
        }
    }
}

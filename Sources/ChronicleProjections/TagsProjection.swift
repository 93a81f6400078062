import ChronicleTodoDomain
import Foundation
import ChronicleLMDB
import UUIDText

/// Live tags by id (`tags`), deleted ones (`tags.hidden`, ``HiddenEntities``), the name index the list is read from (`tags.by-name`, keyed by
/// the case-folded name shown, so "work" and "Work" sort together), and the groups of tags
/// whose own names fold alike (`tags.groups`, keyed by that folded name).
///
/// Tags named apart on devices that had not seen each other may share a name once merged:
/// each group is shown in the order of the writes that gave the names (``TagNames``).
struct TagsProjection: Projection {
    static let name = ProjectionName.tags
    /// 2: colliding names shown with ` (2)`, …; the name's write and the suffix are stored.
    /// 3: deleted tags kept (`tags.hidden`), so a restoration brings them back.
    static let version: UInt32 = 3
    static let databaseNames = ["tags", "tags.by-name", "tags.groups", "tags.hidden"]

    /// The fold, in place: the tag before `event` at `position` (nil: none) becomes the tag after it, by
    /// the rules of the todo app's model (``Kept/fold(_:_:create:change:)``).
    static func fold(_ event: DomainEvent, at position: UInt64, _ tag: inout Kept<StoredTag>?) {
        Kept.fold(event, &tag, create: {
            switch event {
            case .tagCreated(let id, let name, let color):
                StoredTag(id: id, name: name, color: color, nameWrittenAt: position, shownAs: 1)
            default:
                nil
            }
        }, change: { tag in
            switch event {
            case .tagUpdated(_, let name, let color):
                if let name {
                    tag.name = name
                    tag.nameWrittenAt = position
                }
                if let color { tag.color = color }
            default:
                break
            }
        })
    }

    private let txn: Transaction
    private let byID: Database
    private let byName: Database
    private let groups: Database
    private let hidden: HiddenEntities<StoredTag>
    private let ranks: MergeRanks
    private var touched = TouchedEntities<Kept<StoredTag>>(measure: { $0.value.name.utf8.count + $0.value.color.utf8.count })

    var heldEntities: Int { touched.count }
    var loadedBytes: Int { touched.loadedBytes }

    init(txn: Transaction, databases: [Database], ranks: MergeRanks) {
        self.txn = txn
        byID = databases[0]
        byName = databases[1]
        groups = databases[2]
        hidden = HiddenEntities(txn: txn, database: databases[3], byOwner: nil, owner: { _ in nil },
                                encode: ModelCodec.encode(_:into:), decode: ModelCodec.decodeStoredTag(id:_:), same: ==)
        self.ranks = ranks
    }

    static func concerns(_ item: DecodedEvents.Item) -> Bool { item.kind == .tag }

    mutating func apply(_ event: DomainEvent, at position: UInt64) throws {
        guard event.entityKind == .tag else { return }
        let (txn, byID, hidden) = (txn, byID, hidden)
        try touched.fold(event.entityID, at: position, load: { try Self.loadKept(event.entityID, txn: txn, byID: byID, hidden: hidden) }) {
            Self.fold(event, at: position, &$0)
        }
    }

    mutating func forget(_ kind: EntityKind, _ id: UUID, at position: UInt64) throws {
        guard kind == .tag else { return }
        let (txn, byID, hidden) = (txn, byID, hidden)
        try touched.fold(id, at: position, load: { try Self.loadKept(id, txn: txn, byID: byID, hidden: hidden) }) { $0 = nil }
    }

    mutating func finish(changes: inout [ReadModelChange]?) throws {
        try showGroups()
        var key = [UInt8](), value = [UInt8]()
        var membershipChanged: UInt64?
        var tags = try AscendingPuts(txn: txn, database: byID)
        try touched.forEachSorted { id, entry in
            try hidden.write(id, original: entry.original, current: entry.current)
            let old = entry.original?.shown, new = entry.current?.shown
            if old == new { return }
            let regrouped = !(old?.name).sameBytes(as: new?.name)
            let renamed = regrouped || old?.shownAs != new?.shownAs
            if let old, regrouped {
                ModelCodec.nameKey(Tag.foldedName(old.name), id: id, into: &key)
                try txn.delete(groups, key: key)
            }
            if let old, renamed {
                ModelCodec.nameKey(Tag.foldedName(old.shown.name), id: id, into: &key)
                try txn.delete(byName, key: key)
            }
            guard let new else {
                try txn.delete(byID, key: withUnsafeBytes(of: id.uuid) { Array($0) })
                changes?.append(.tagRemoved(id, position: entry.position))
                membershipChanged = max(membershipChanged ?? 0, entry.position)
                return
            }
            if old == nil { membershipChanged = max(membershipChanged ?? 0, entry.position) }
            if regrouped {
                ModelCodec.nameKey(Tag.foldedName(new.name), id: id, into: &key)
                try txn.putIndexEntry(groups, key: key)
            }
            if renamed {
                ModelCodec.nameKey(Tag.foldedName(new.shown.name), id: id, into: &key)
                try txn.putIndexEntry(byName, key: key)
            }
            ModelCodec.encode(new, into: &value)
            try withUnsafeBytes(of: id.uuid) { k in
                try value.withUnsafeBytes { v in try tags.put(key: k, value: v) }
            }
            changes?.append(.tag(new.shown, position: entry.position))
        }
        // A todo shows only its live tags: a tag that came or went changes todos this
        // projection does not itemize.
        if let membershipChanged { changes?.append(.invalidated(.todos, position: membershipChanged)) }
    }

    /// Sets how each tag of every group the batch changed is shown: the groups a touched
    /// tag's name left or joined, with their members as stored and as folded by the batch.
    private mutating func showGroups() throws {
        var names = Set<String>()
        touched.forEachSorted { _, entry in
            // A refold (a pulled write about a tag this store wrote later) folds the tag anew
            // with its own name shown as is: its group is shown again even when its name is the
            // same, else a tag shown with " (2)" would lose its suffix.
            let before = entry.original?.shown, after = entry.current?.shown
            guard !(before?.name).sameBytes(as: after?.name) || before?.shownAs != after?.shownAs
                || before?.nameWrittenAt != after?.nameWrittenAt else { return }
            if let old = entry.original?.shown { names.insert(Tag.foldedName(old.name)) }
            if let new = entry.current?.shown { names.insert(Tag.foldedName(new.name)) }
        }
        guard !names.isEmpty else { return }
        var current: [UUID: StoredTag?] = [:]
        var latest: UInt64 = 0
        touched.forEachSorted { id, entry in
            current[id] = .some(entry.current?.shown)
            latest = max(latest, entry.position)
        }
        for folded in names.sorted() {
            var members: [UUID: StoredTag] = [:]
            for id in try storedGroup(folded) {
                if let tag = try current[id] ?? Self.loadStored(id, txn: txn, byID: byID) { members[id] = tag }
            }
            for (id, tag) in current { if let tag { members[id] = tag } }
            members = members.filter { Tag.foldedName($0.value.name) == folded }
            guard !members.isEmpty else { continue }
            let ranks = try ranks.ranks(of: members.values.map(\.nameWrittenAt))
            let shown = TagNames.shownOrder(members.values.map { (id: $0.id, rank: ranks[$0.nameWrittenAt]!) })
            for (id, order) in shown where members[id]?.shownAs != order {
                let (txn, byID, hidden) = (txn, byID, hidden)
                try touched.fold(id, at: latest, load: { try Self.loadKept(id, txn: txn, byID: byID, hidden: hidden) }) { tag in
                    tag?.value.shownAs = order
                }
                current[id] = .some(members[id].map { var tag = $0; tag.shownAs = order; return tag })
            }
        }
    }

    /// The ids in `tags.groups` under `folded`.
    private func storedGroup(_ folded: String) throws -> [UUID] {
        var prefix = [UInt8]()
        ModelCodec.nameKey(folded, id: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), into: &prefix)
        prefix.removeLast(16)
        var ids: [UUID] = []
        try txn.withCursor(groups) { cursor in
            var entry = try cursor.seek(atLeast: prefix)
            while let found = entry, found.key.count == prefix.count + 16, found.key.starts(with: prefix) {
                ids.append(try ModelCodec.id(in: found.key, at: prefix.count))
                entry = try cursor.next()
            }
        }
        return ids
    }

    static func load(_ id: UUID, txn: Transaction, byID: Database) throws -> Tag? {
        try loadStored(id, txn: txn, byID: byID)?.shown
    }

    static func loadStored(_ id: UUID, txn: Transaction, byID: Database) throws -> StoredTag? {
        try withUnsafeBytes(of: id.uuid) { key in
            try txn.get(byID, key: key).map { bytes in try ModelCodec.decodeStoredTag(id: id, bytes) }
        }
    }

    private static func loadKept(_ id: UUID, txn: Transaction, byID: Database, hidden: HiddenEntities<StoredTag>) throws -> Kept<StoredTag>? {
        try loadStored(id, txn: txn, byID: byID).map { Kept(value: $0) } ?? hidden.load(id)
    }
}

/// A live tag as the tags model keeps it: its own name, the position of the write that gave
/// it, and how it is shown (1: as it is; n ≥ 2: with ` (n)` appended, see ``TagNames``).
struct StoredTag: Equatable, Sendable {
    var id: UUID
    var name: String
    var color: String
    var nameWrittenAt: UInt64
    var shownAs: UInt16

    /// The tag as reads show it.
    var shown: Tag { Tag(id: id, name: TagNames.shownName(name, order: Int(shownAs)), color: color) }

    static func == (a: StoredTag, b: StoredTag) -> Bool {
        a.id == b.id && a.name.sameBytes(as: b.name) && a.color == b.color
            && a.nameWrittenAt == b.nameWrittenAt && a.shownAs == b.shownAs
    }
}

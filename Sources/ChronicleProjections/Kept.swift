import ChronicleTodoDomain
import Foundation
import ChronicleLMDB

/// An entity as a projection folds it: its fields, whether it is deleted, and whether its
/// owner (a todo's user) is. Reads show it only when neither; a projection keeps it either
/// way, so a restoration (of it, or of its user) brings it back as it was.
struct Kept<Value> {
    var value: Value
    var isDeleted = false
    var ownerDeleted = false

    /// Whether reads show it.
    var isShown: Bool { !isDeleted && !ownerDeleted }
    /// The value reads show: nil while hidden.
    var shown: Value? { isShown ? value : nil }

    /// The stored flags of a hidden entity: 1 deleted, 2 its owner deleted.
    var flags: UInt8 { (isDeleted ? 1 : 0) | (ownerDeleted ? 2 : 0) }

    /// The fold every model shares for one event about its entity, in place (nil: none): a
    /// creation makes it (once per id), a deletion and a restoration mark it, and a change
    /// (`change`) applies only while it is not deleted (its owner's deletion hides it but does
    /// not freeze it). In place, so a change to one field copies none of the others.
    static func fold(_ event: DomainEvent, _ kept: inout Kept?, create: () -> Value?, change: (inout Value) -> Void) {
        switch event.lifecycle {
        case .created:
            if kept == nil { kept = create().map { Kept(value: $0) } }
        case .deleted, .restored:
            kept?.isDeleted = event.lifecycle == .deleted
        case .changed:
            guard kept?.isDeleted == false else { return }
            change(&kept!.value)
        }
    }
}

/// The entities a model keeps but does not show (`<model>.hidden`: id → flags ‖ the model's
/// own encoding of the value), and, for entities with an owner, an index of them by owner
/// (`<model>.hidden-by-user`: user id ‖ entity id), so a user's restoration finds them.
///
/// Shown entities live in the model's main database and indexes, which reads use; a hidden
/// one is in neither. ``write(_:original:current:)`` moves an entity between the two as a
/// batch changes it.
struct HiddenEntities<Value> {
    let txn: Transaction
    let database: Database
    let byOwner: Database?
    /// The owner of a value (a todo's user), for ``byOwner``.
    let owner: (Value) -> UUID?
    let encode: (Value, inout [UInt8]) -> Void
    let decode: (UUID, UnsafeRawBufferPointer) throws -> Value
    let same: (Value, Value) -> Bool

    /// The hidden entity `id`, nil when it is not hidden (shown or absent).
    func load(_ id: UUID) throws -> Kept<Value>? {
        try withUnsafeBytes(of: id.uuid) { key in
            try txn.get(database, key: key).map { bytes throws -> Kept<Value> in
                guard let flags = bytes.first, flags & 3 != 0, flags & ~3 == 0 else {
                    throw ProjectionError.corruptModel("hidden entity with flags \(bytes.first.map(String.init) ?? "none")")
                }
                return Kept(value: try decode(id, UnsafeRawBufferPointer(rebasing: bytes.dropFirst())),
                            isDeleted: flags & 1 != 0, ownerDeleted: flags & 2 != 0)
            }
        }
    }

    /// Writes the hidden side of `id`'s change from `original` to `current`; the caller
    /// writes the shown side (`original?.shown` → `current?.shown`).
    func write(_ id: UUID, original: Kept<Value>?, current: Kept<Value>?) throws {
        let before = original.flatMap { $0.isShown ? nil : $0 }
        let after = current.flatMap { $0.isShown ? nil : $0 }
        if before == nil && after == nil { return }   // shown (or absent) before and after: most entities
        if let before, let after, before.flags == after.flags, same(before.value, after.value) { return }
        let key = withUnsafeBytes(of: id.uuid) { Array($0) }
        if let before {
            if let byOwner, let user = owner(before.value), after.map({ owner($0.value) }) != user {
                try txn.delete(byOwner, key: Self.ownerKey(user, id))
            }
            if after == nil { try txn.delete(database, key: key) }
        }
        guard let after else { return }
        var value: [UInt8] = []
        encode(after.value, &value)
        value.insert(after.flags, at: 0)
        try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try txn.put(database, key: k, value: v) } }
        if let byOwner, let user = owner(after.value), before.map({ owner($0.value) }) != user {
            try txn.putIndexEntry(byOwner, key: Self.ownerKey(user, id))
        }
    }

    /// The hidden entities of `user` (by ``byOwner``).
    func ids(ownedBy user: UUID) throws -> [UUID] {
        guard let byOwner else { return [] }
        let prefix = withUnsafeBytes(of: user.uuid) { Array($0) }
        var ids: [UUID] = []
        try txn.withCursor(byOwner) { cursor in
            var entry = try cursor.seek(atLeast: prefix)
            while let current = entry, current.key.starts(with: prefix) {
                ids.append(try ModelCodec.id(in: current.key, at: 16))
                entry = try cursor.next()
            }
        }
        return ids
    }

    private static func ownerKey(_ user: UUID, _ id: UUID) -> [UInt8] {
        var key: [UInt8] = []
        key.appendID(user)
        key.appendID(id)
        return key
    }
}

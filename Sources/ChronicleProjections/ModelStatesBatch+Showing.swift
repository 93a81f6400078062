import ChronicleSchema
import Foundation
import ChronicleLMDB

extension ModelStatesBatch {
    /// The two moments a batch's change is judged at.
    enum Moment { case before, after }

    /// What the batch reads while judging what it shows: the entities it did not touch, each once.
    struct Untouched {
        var states: [Key: ChronicleModel.EntityState?] = [:]
    }

    /// One entity whose shown-ness the batch may change: its state before and after the
    /// batch, and whether it is shown then (``ChronicleModel/isShown(_:parent:)``).
    struct ShowingChange {
        let key: Key
        let before: ChronicleModel.EntityState?
        let after: ChronicleModel.EntityState?
        let shownBefore: Bool
        let shownAfter: Bool

        /// Whether it is live but hidden by a parent after the batch (``StoredEntity/isHidden``).
        var hiddenAfter: Bool { after.map { !$0.isDeleted && !shownAfter } ?? false }
    }

    /// Every entity the batch touched (`entries`, the batch's ``touched``, in their order:
    /// the first changes are theirs, in the same order), then, down the chain, the children of
    /// each whose deletion hides them and which hides them now and did not before (or the
    /// other way round): judged before and after the batch.
    func showingChanges(_ entries: [(key: Key, value: Touched)]) throws -> [ShowingChange] {
        var untouched = Untouched()
        let (judgedBefore, judgedAfter) = (ShownJudgement(owner.showing), ShownJudgement(owner.showing))
        var changes: [ShowingChange] = []
        changes.reserveCapacity(entries.count)
        var pending: [Key] = []
        var seen: Set<Key> = []
        func judge(_ key: Key, before: ChronicleModel.EntityState?, after: ChronicleModel.EntityState?) throws {
            let shownBefore = try before.map { state in
                try judgedBefore.isShown(state, key) { try self.state($0, .before, &untouched) }
            } ?? false
            let shownAfter = try after.map { state in
                try judgedAfter.isShown(state, key) { try self.state($0, .after, &untouched) }
            } ?? false
            changes.append(ShowingChange(key: key, before: before, after: after, shownBefore: shownBefore, shownAfter: shownAfter))
            // A parent hides its children when it is there and not shown; one not found hides nothing.
            guard (before != nil && !shownBefore) != (after != nil && !shownAfter) else { return }
            for (child, field) in owner.hidingReferences[key.entity] {
                let prefix = ModelStateKeys.childrenPrefix(child, field, parent: key.id)
                try txn.scan(tables.children, prefix: prefix) { key, _ in
                    guard let id = ModelStateKeys.trailingID(key) else { return }
                    let childKey = Key(entity: child, id: id)
                    if touched[childKey] == nil, seen.insert(childKey).inserted { pending.append(childKey) }
                }
            }
        }
        for (key, entry) in entries {
            try judge(key, before: entry.before?.state, after: entry.state)
        }
        while let key = pending.popLast() {
            try judge(key, before: try state(key, .before, &untouched), after: try state(key, .after, &untouched))
        }
        return changes
    }

    /// Sets the hidden flag of each entity of `changes`, none of which the batch touched
    /// (their stored bytes are otherwise unchanged); the touched ones are written whole.
    func writeHiddenFlags(of changes: ArraySlice<ShowingChange>) throws {
        for change in changes {
            guard var bytes = try tables.storedBytes(txn, change.key.entity, change.key.id).map(Array.init), !bytes.isEmpty else { continue }
            let flags = change.hiddenAfter ? bytes[0] | StoredEntity.hiddenFlag : bytes[0] & ~StoredEntity.hiddenFlag
            guard flags != bytes[0] else { continue }
            bytes[0] = flags
            try tables.put(txn, change.key.entity, change.key.id, bytes: bytes, isDeleted: flags & 1 == 1)
        }
    }

    /// Entity `key` before or after the batch.
    private func state(_ key: Key, _ moment: Moment, _ untouched: inout Untouched) throws -> ChronicleModel.EntityState? {
        if let known = touched[key] {
            return moment == .before ? known.before?.state : known.state
        }
        if let known = untouched.states[key] { return known }
        let entity = owner.model.entities[key.entity]
        let state = try tables.storedBytes(txn, key.entity, key.id).map { try StoredEntity.decode($0, id: key.id, entity: entity.name, layout: owner.layouts[key.entity]).state }
        untouched.states[key] = .some(state)
        return state
    }
}

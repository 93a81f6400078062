import ChronicleSchema
import Foundation
import LMDB

extension ModelStatesBatch {
    /// The two moments a batch's change is judged at.
    private enum Moment { case before, after }

    /// What the batch reads while moving shares: the entities it did not touch, each once.
    private struct Untouched {
        var states: [Key: ChronicleModel.EntityState?] = [:]
    }

    /// Moves the shares of the aggregates' rows: every entity the batch changed leaves the row
    /// it counted in (if it was shown) and joins the one it counts in now (if it is shown). An
    /// entity whose deletion or restoration hides or shows its children moves theirs too,
    /// down the chain; so a row always counts the shown entities as
    /// ``ChronicleModel/Snapshot/rows(of:)`` counts them.
    func moveShares() throws {
        let aggregates = owner.model.aggregates
        guard !aggregates.isEmpty else { return }
        var untouched = Untouched()
        var rows: [[UInt8]: StoredAggregateRow] = [:]
        var pending = Array(original.keys)
        var seen = Set(pending)
        while let key = pending.popLast() {
            // Entities that are counted nowhere and hide nothing counted pass at once.
            guard owner.countedOrHidingCounted[key.entity] else { continue }
            let entity = owner.model.entities[key.entity]
            let before = try state(key, .before, &untouched), after = try state(key, .after, &untouched)
            let shownBefore = try before.map { try isShown($0, .before, &untouched) } ?? false
            let shownAfter = try after.map { try isShown($0, .after, &untouched) } ?? false
            for (number, aggregate) in aggregates.enumerated() where aggregate.entity == entity.name {
                let old = shownBefore ? before.flatMap { StoredAggregateRow(share: $0, of: aggregate, in: entity) } : nil
                let new = shownAfter ? after.flatMap { StoredAggregateRow(share: $0, of: aggregate, in: entity) } : nil
                guard old != new else { continue }
                if let old { try add(old, sign: -1, to: number, in: &rows) }
                if let new { try add(new, sign: 1, to: number, in: &rows) }
            }
            guard shownBefore != shownAfter else { continue }
            // Its children the batch did not touch are shown or hidden with it.
            for (child, field) in hidingReferences(to: entity.name) {
                let prefix = ModelStateKeys.childrenPrefix(child, field, parent: key.id)
                try txn.scan(owner.children, prefix: prefix) { key, _ in
                    guard let id = ModelStateKeys.trailingID(key) else { return }
                    let childKey = Key(entity: child, id: id)
                    if seen.insert(childKey).inserted { pending.append(childKey) }
                }
            }
        }
        for (key, row) in rows {
            if row.members > 0 {
                try txn.put(owner.rows, key: key, value: row.encoded())
            } else {
                try txn.delete(owner.rows, key: key)
            }
        }
    }

    private func add(_ share: StoredAggregateRow, sign: Int, to aggregate: Int,
                     in rows: inout [[UInt8]: StoredAggregateRow]) throws {
        let key = ModelStateKeys.row(aggregate, share.key)
        if rows[key] == nil {
            let stored = try key.withUnsafeBytes { k in
                try txn.get(owner.rows, key: k).map { try StoredAggregateRow.decode($0, aggregate: owner.model.aggregates[aggregate].name) }
            }
            rows[key] = stored ?? StoredAggregateRow(key: share.key, members: 0, measures: share.measures.map { measure in
                if case .integer = measure { .integer(0) } else { .text("0") }
            })
        }
        rows[key]?.add(share, sign: sign)
    }

    /// Entity `key` before or after the batch.
    private func state(_ key: Key, _ moment: Moment, _ untouched: inout Untouched) throws -> ChronicleModel.EntityState? {
        if let stored = original[key] {
            let entity = owner.model.entities[key.entity]
            return moment == .before ? stored?.state : overlay.state(of: entity.name, id: key.id)
        }
        if let known = untouched.states[key] { return known }
        let entity = owner.model.entities[key.entity]
        let state = try ModelStateKeys.state(key.entity, key.id).withUnsafeBytes { k in
            try txn.get(owner.states, key: k).map { try StoredEntity.decode($0, id: key.id, entity: entity).state }
        }
        untouched.states[key] = .some(state)
        return state
    }

    /// Whether `state` is shown at `moment` (``ChronicleModel/isShown(_:parent:)``).
    private func isShown(_ state: ChronicleModel.EntityState, _ moment: Moment, _ untouched: inout Untouched) throws -> Bool {
        try owner.showing.isShown(state) { target, id in
            guard let number = owner.entityNumbers[target] else { return nil }
            return try self.state(Key(entity: number, id: id), moment, &untouched)
        }
    }

    /// The (entity, field) pairs whose references to `target` hide the referring entity
    /// while the parent is deleted.
    private func hidingReferences(to target: String) -> [(entity: Int, field: Int)] {
        owner.model.entities.enumerated().flatMap { number, entity in
            entity.fields.enumerated().compactMap { index, field in
                if case .reference(target) = field.type, field.onParentDeletion != nil { (number, index) } else { nil }
            }
        }
    }
}

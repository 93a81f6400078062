import Foundation

extension ChronicleModel {
    /// How the events of a model's entities change one entity's state: the fold of a
    /// ``Snapshot``, for a caller that keeps each entity's state where it likes (a stored read
    /// model's batch keeps it beside what it knows of the entity: one lookup an event).
    ///
    /// ```swift
    /// let fold = ChronicleModel.StateFold(model)
    /// var state: ChronicleModel.EntityState?, ranks: [String: ChronicleModel.EventRank] = [:]
    /// fold.apply(event, place: place, rank: rank, to: &state, uniqueRanks: &ranks)
    /// ```
    package struct StateFold: Sendable {
        /// Per entity (by its place in ``ChronicleModel/entities``), how its events change it.
        private let folds: [EntityFold]

        package init(_ model: ChronicleModel) {
            folds = model.entities.map { EntityFold($0) }
        }

        /// Whether the entity at `place` has a unique field, whose writes' ranks a fold notes.
        package func keepsUniqueRanks(ofEntityAt place: Int) -> Bool { !folds[place].unique.isEmpty }

        /// Folds `event`, an event of the entity at `place`, into `state` (nil: none of its
        /// events created it), as ``Snapshot`` folds it; notes in `uniqueRanks`, per unique field
        /// it writes, `rank`: where the write that gave the value stands in the merge's order.
        package func apply(_ event: Event, place: Int, rank: EventRank, to state: inout EntityState?,
                           uniqueRanks: inout [String: EventRank]) {
            let fold = folds[place]
            switch event.change {
            case .created(let given):
                // A creation of an id that exists changes nothing.
                guard state == nil else { return }
                state = fold.created(event.entity, event.id, given)
                noteUnique(of: fold, written: given, rank: rank, in: &uniqueRanks)
            case .deleted, .restored:
                let deleted = event.change == .deleted
                guard state != nil, state!.isDeleted != deleted else { return }
                state!.isDeleted = deleted
            case .updated(let given):
                guard state?.isDeleted == false else { return }
                fold.update(&state!, with: given)
                noteUnique(of: fold, written: given, rank: rank, in: &uniqueRanks)
            case .set(let field, let on):
                guard state?.isDeleted == false else { return }
                state!.values[field] = .boolean(on)
            case .added(let field, let member), .removed(let field, let member):
                guard state?.isDeleted == false else { return }
                var members = Set(state!.members(of: field))
                if case .added = event.change { members.insert(member) } else { members.remove(member) }
                state!.values[field] = .ids(ChronicleModel.sortedIDs(members))
            }
        }

        private func noteUnique(of fold: EntityFold, written: FieldValues, rank: EventRank, in ranks: inout [String: EventRank]) {
            for name in fold.unique where written[name] != nil { ranks[name] = rank }
        }
    }
}

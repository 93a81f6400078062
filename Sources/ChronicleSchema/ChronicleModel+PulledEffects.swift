import Foundation

extension ChronicleModel.Decider {
    /// The conditions that changes brought by a pull carry, as this model's commands would have
    /// written them here: a live entity's unique value claims its key, a changed value moves
    /// the claim, a deletion releases it and a restoration claims it again; a child that comes
    /// under a parent touches the parent's key. Stored with the pulled events (the log applies
    /// them without refusing: the events were decided elsewhere), they keep this store's own
    /// commands and other processes deciding on what the pull brought.
    ///
    /// ```swift
    /// let keys = decider.effects(of: [(before: stored, after: merged)])   // before the events are stored
    /// ```
    /// - parameter changes: each entity the pull changes, as stored before it and as the merge
    ///   leaves it after (nil: no such entity).
    public func effects(of changes: [(before: ChronicleModel.EntityState?, after: ChronicleModel.EntityState?)])
        -> [ChronicleModel.Condition] {
        var conditions: [ChronicleModel.Condition] = []
        for (before, after) in changes {
            guard let name = after?.entity ?? before?.entity, let id = after?.id ?? before?.id,
                  let entity = model.entity(named: name) else { continue }
            let stream = Self.stream(entity, id)
            for field in entity.fields {
                if let uniqueness = field.unique {
                    let old = Self.uniqueKey(before, field, uniqueness), new = Self.uniqueKey(after, field, uniqueness)
                    if old != new {
                        if let old { conditions.append(.release(Self.uniqueKey(entity, field, old), by: stream)) }
                        if let new { conditions.append(.claim(Self.uniqueKey(entity, field, new), by: stream)) }
                    }
                }
                if field.onParentDeletion != nil, let after, !after.isDeleted,
                   before?.values[field.name] != after.values[field.name] || before?.isDeleted != false,
                   let touch = Self.parentTouch(of: entity, field, after.values[field.name], in: model) {
                    conditions.append(touch)
                }
            }
        }
        return conditions
    }

    private static func uniqueKey(_ state: ChronicleModel.EntityState?, _ field: ChronicleModel.Field,
                                  _ uniqueness: ChronicleModel.Uniqueness) -> String? {
        guard let state, !state.isDeleted, case .text(let text)? = state.values[field.name] else { return nil }
        return uniqueness.key(text)
    }
}

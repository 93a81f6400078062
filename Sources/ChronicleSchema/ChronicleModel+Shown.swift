import Foundation

extension ChronicleModel {
    /// Whether `state` is shown by the model's rules: it is not deleted, and each parent whose
    /// deletion hides it (a reference declared with a ``ParentDeletion``) is shown too.
    ///
    /// `parent` finds a parent's state; one it does not find (never created, or not here)
    /// hides nothing. A chain of parents longer than the model has entities is a cycle of
    /// references, followed no further. Stored read models apply this rule to the entities
    /// they load; ``Snapshot/shown(_:)`` applies the same rule to everything it holds.
    public func isShown(_ state: EntityState,
                        parent: (_ entity: String, _ id: UUID) throws -> EntityState?) rethrows -> Bool {
        try isShown(state, depth: 0, parent: parent)
    }

    private func isShown(_ state: EntityState, depth: Int,
                         parent find: (_ entity: String, _ id: UUID) throws -> EntityState?) rethrows -> Bool {
        guard !state.isDeleted, let entity = entity(named: state.entity) else { return false }
        guard depth <= entities.count else { return true }
        for field in entity.fields where field.onParentDeletion != nil {
            guard case .reference(let target) = field.type, let parentID = state.reference(field.name),
                  let parent = try find(target, parentID) else { continue }
            if try !isShown(parent, depth: depth + 1, parent: find) { return false }
        }
        return true
    }
}

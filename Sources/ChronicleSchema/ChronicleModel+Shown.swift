import Foundation

extension ChronicleModel {
    /// Whether `state` is shown by the model's rules: it is not deleted, and each parent whose
    /// deletion hides it (a reference declared with a ``ParentDeletion``) is shown too.
    ///
    /// `parent` finds a parent's state; one it does not find (never created, or not here)
    /// hides nothing. A chain of parents longer than the model has entities is a cycle of
    /// references, followed no further. Stored read models apply this rule to the entities
    /// they load (planned once, ``ShowingRule``); ``Snapshot/shown(_:)`` applies the same rule
    /// to everything it holds.
    public func isShown(_ state: EntityState,
                        parent: (_ entity: String, _ id: UUID) throws -> EntityState?) rethrows -> Bool {
        try ShowingRule(self).isShown(state, parent: parent)
    }

    /// ``ChronicleModel/isShown(_:parent:)`` planned once for a model: per entity, the
    /// references whose parent's deletion hides it, so that judging many entities does not
    /// look through the model's declarations each time.
    public struct ShowingRule: Sendable {
        private let hiding: [String: [(field: String, target: String)]]
        private let longestChain: Int

        /// The rule of `model`.
        public init(_ model: ChronicleModel) {
            var hiding: [String: [(field: String, target: String)]] = [:]
            for entity in model.entities {
                hiding[entity.name] = entity.fields.compactMap { field in
                    guard field.onParentDeletion != nil, case .reference(let target) = field.type else { return nil }
                    return (field.name, target)
                }
            }
            self.hiding = hiding
            longestChain = model.entities.count
        }

        /// Whether `state` is shown (``ChronicleModel/isShown(_:parent:)``).
        public func isShown(_ state: EntityState,
                            parent: (_ entity: String, _ id: UUID) throws -> EntityState?) rethrows -> Bool {
            try isShown(state, depth: 0, parent: parent)
        }

        private func isShown(_ state: EntityState, depth: Int,
                             parent find: (_ entity: String, _ id: UUID) throws -> EntityState?) rethrows -> Bool {
            guard !state.isDeleted, let references = hiding[state.entity] else { return false }
            guard depth <= longestChain else { return true }
            for (field, target) in references {
                guard let parentID = state.reference(field), let parent = try find(target, parentID) else { continue }
                if try !isShown(parent, depth: depth + 1, parent: find) { return false }
            }
            return true
        }
    }
}

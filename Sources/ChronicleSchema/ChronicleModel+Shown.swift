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
                        parent: (_ entity: String, _ id: UUID) throws -> EntityState?) throws -> Bool {
        try ShowingRule(self).isShown(state, parent: parent)
    }

    /// ``ChronicleModel/isShown(_:parent:)`` planned once for a model: per entity, the
    /// references whose parent's deletion hides it, so that judging many entities does not
    /// look through the model's declarations each time.
    public struct ShowingRule: Sendable {
        /// A reference whose parent's deletion hides the entity holding it.
        public struct HidingReference: Sendable {
            /// The field's name and its place in its entity's declaration.
            public let field: String
            public let fieldIndex: Int
            /// The parent's entity: its name and its place in the model.
            public let target: String
            public let targetIndex: Int
        }

        private let hiding: [String: [HidingReference]]
        /// How deep a chain of parents is followed: longer is a cycle.
        public let longestChain: Int

        /// The rule of `model`.
        public init(_ model: ChronicleModel) {
            var hiding: [String: [HidingReference]] = [:]
            for entity in model.entities {
                hiding[entity.name] = entity.fields.enumerated().compactMap { index, field in
                    guard field.onParentDeletion != nil, case .reference(let target) = field.type,
                          let targetIndex = model.entities.firstIndex(where: { $0.name == target }) else { return nil }
                    return HidingReference(field: field.name, fieldIndex: index, target: target, targetIndex: targetIndex)
                }
            }
            self.hiding = hiding
            longestChain = model.entities.count
        }

        /// Whether `state` is shown (``ChronicleModel/isShown(_:parent:)``).
        public func isShown(_ state: EntityState,
                            parent: (_ entity: String, _ id: UUID) throws -> EntityState?) throws -> Bool {
            try isShown(state, depth: 0, parent: parent)
        }

        private func isShown(_ state: EntityState, depth: Int,
                             parent find: (_ entity: String, _ id: UUID) throws -> EntityState?) throws -> Bool {
            try isShown(state, depth: depth) { reference, id in
                try find(reference.target, id).map { try isShown($0, depth: depth + 1, parent: find) }
            }
        }

        /// Whether `subject`, `depth` parents down a chain, is shown: not deleted, and each
        /// parent whose deletion hides it shown too. `parentShown` says whether the parent a
        /// reference names is shown (nil when it is not found: it hides nothing), judging it
        /// at `depth + 1` by this rule; past ``longestChain`` a chain is a cycle, and hides
        /// nothing more. For a read model that judges entities where they are stored.
        public func isShown(_ subject: some ShowingSubject, depth: Int,
                            parentShown: (_ reference: HidingReference, _ id: UUID) throws -> Bool?) throws -> Bool {
            guard !subject.isDeleted, let references = hiding[subject.entity] else { return false }
            guard depth <= longestChain else { return true }
            for reference in references {
                guard let parentID = try subject.parent(reference), let shown = try parentShown(reference, parentID) else { continue }
                if !shown { return false }
            }
            return true
        }
    }

    /// What the rule of what is shown (``ShowingRule``) reads of an entity: an
    /// ``EntityState``, or a read model's stored form read in place.
    public protocol ShowingSubject {
        /// The entity's name.
        var entity: String { get }
        var isDeleted: Bool { get }
        /// The parent `reference` names, when it names one.
        func parent(_ reference: ShowingRule.HidingReference) throws -> UUID?
    }
}

extension ChronicleModel.EntityState: ChronicleModel.ShowingSubject {
    /// The parent `reference` names, when this state holds one.
    public func parent(_ reference: ChronicleModel.ShowingRule.HidingReference) -> UUID? {
        self.reference(reference.field)
    }
}

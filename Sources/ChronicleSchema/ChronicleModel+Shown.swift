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
        /// Per entity (by its place in the model), the references whose parent's deletion
        /// hides it: the field's name and place, and the parent entity's place.
        private let hiding: [[(field: String, fieldPlace: Int, target: Int)]]
        private let places: [String: Int]
        private let names: [String]
        private let longestChain: Int
        /// Whether no chain of hiding references comes back to where it began: then whether
        /// an entity is shown does not depend on where a chain met it, and may be remembered.
        package let isAcyclic: Bool

        /// The rule of `model`.
        public init(_ model: ChronicleModel) {
            let places = Dictionary(model.entities.enumerated().map { ($1.name, $0) }) { first, _ in first }
            hiding = model.entities.map { entity in
                entity.fields.enumerated().compactMap { fieldPlace, field in
                    guard field.onParentDeletion != nil, case .reference(let target) = field.type,
                          let place = places[target] else { return nil }
                    return (field.name, fieldPlace, place)
                }
            }
            self.places = places
            names = model.entities.map(\.name)
            longestChain = model.entities.count
            isAcyclic = Self.isAcyclic(hiding.map { $0.map(\.target) })
        }

        /// Whether the graph of `edges` (each node's targets) has no cycle.
        private static func isAcyclic(_ edges: [[Int]]) -> Bool {
            // 0: not met, 1: on the current path, 2: done.
            var marks = Array(repeating: 0, count: edges.count)
            func visit(_ node: Int) -> Bool {
                if marks[node] == 1 { return false }
                if marks[node] == 2 { return true }
                marks[node] = 1
                for target in edges[node] where !visit(target) { return false }
                marks[node] = 2
                return true
            }
            return edges.indices.allSatisfy(visit)
        }

        /// Whether `state`, an entity of the model's entity at `place`, is shown, told by
        /// `parentIsShown` whether each parent it names is (nil: not there). For a caller that
        /// judges many children of few parents and remembers each parent's answer; only
        /// where the rule ``isAcyclic``, else an answer depends on the chain that asked.
        package func isShown(_ state: EntityState, place: Int,
                             parentIsShown: (_ place: Int, _ id: UUID) throws -> Bool?) rethrows -> Bool {
            guard !state.isDeleted, hiding.indices.contains(place) else { return false }
            for (field, fieldPlace, target) in hiding[place] {
                guard let parentID = state.reference(at: fieldPlace, named: field),
                      let shown = try parentIsShown(target, parentID) else { continue }
                if !shown { return false }
            }
            return true
        }

        /// Whether `state` is shown (``ChronicleModel/isShown(_:parent:)``).
        public func isShown(_ state: EntityState,
                            parent: (_ entity: String, _ id: UUID) throws -> EntityState?) rethrows -> Bool {
            guard let place = places[state.entity] else { return false }
            return try isShown(state, place: place, depth: 0) { place, id in try parent(names[place], id) }
        }

        /// Whether `state`, an entity of the model's entity at `place` (in
        /// ``ChronicleModel/entities``), is shown: as ``isShown(_:parent:)``, with entities
        /// named by their places, so that judging many entities hashes no names.
        public func isShown(_ state: EntityState, place: Int,
                            parent: (_ place: Int, _ id: UUID) throws -> EntityState?) rethrows -> Bool {
            try isShown(state, place: place, depth: 0, parent: parent)
        }

        private func isShown(_ state: EntityState, place: Int, depth: Int,
                             parent find: (_ place: Int, _ id: UUID) throws -> EntityState?) rethrows -> Bool {
            guard !state.isDeleted, hiding.indices.contains(place) else { return false }
            guard depth <= longestChain else { return true }
            for (field, fieldPlace, target) in hiding[place] {
                guard let parentID = state.reference(at: fieldPlace, named: field), let parent = try find(target, parentID) else { continue }
                if try !isShown(parent, place: target, depth: depth + 1, parent: find) { return false }
            }
            return true
        }
    }
}

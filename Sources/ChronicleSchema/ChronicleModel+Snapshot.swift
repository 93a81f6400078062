import Foundation

extension ChronicleModel {
    /// Every entity of a model held in memory, folded from its events: how `replay`, the
    /// generic `list` and `show` of the CLI, and `verify --deep` read a store by its model alone.
    ///
    /// ```swift
    /// var snapshot = ChronicleModel.Snapshot(model)
    /// for event in events { snapshot.apply(try reader.read(type: …, stream: …, data: …)) }
    /// snapshot.shown("Note")             // the live notes, by id
    /// snapshot.rows(of: "NotesPerDay")   // the aggregate's rows, by key
    /// ```
    ///
    /// The fold is total: an event that does not apply (a creation of an id that exists, a
    /// change of an entity that is not live, a restoration of one that is not deleted) changes
    /// nothing. A deletion keeps the entity as it was, and a restoration brings it back so.
    /// What is shown follows the rules of the model:
    /// - an entity whose parent (a reference with ``ParentDeletion``) is here and not shown is
    ///   hidden, and comes back with it;
    /// - a set shows the members that are shown;
    /// - live entities whose unique values collide (written apart, on devices that had not seen
    ///   each other) keep them; the first in the merge's order shows its value, the next with
    ///   ` (2)`, and so on.
    public struct Snapshot: Sendable {
        /// The model folded by.
        public let model: ChronicleModel
        /// Per entity of the model (by its place in ``ChronicleModel/entities``), its states by id.
        /// Changes are made in place: a copy taken out and put back would copy its values too.
        private var states: [[UUID: EntityState]]
        /// Per entity (by place), id and unique field: the rank of the write that gave its value.
        private var uniqueRanks: [[UUID: [String: EventRank]]]
        private var applied: UInt64 = 0
        /// How events change each entity.
        private let fold: StateFold

        /// An empty snapshot of `model`, as of position 0.
        public init(_ model: ChronicleModel) {
            self.model = model
            fold = StateFold(model)
            states = Array(repeating: [:], count: model.entities.count)
            uniqueRanks = Array(repeating: [:], count: model.entities.count)
        }

        /// The place of entity `name` among the model's (few) entities: compared, not hashed.
        private func number(of name: String) -> Int? {
            model.entities.firstIndex { $0.name == name }
        }

        /// Folds one event in, ranked after every event folded so far.
        public mutating func apply(_ event: Event) {
            apply(event, rank: EventRank(upstream: nil, position: applied + 1))
        }

        /// Folds one event in; `rank` orders the values of unique fields that collide.
        public mutating func apply(_ event: Event, rank: EventRank) {
            guard let number = number(of: event.entity) else {
                applied = max(applied, rank.position)
                return
            }
            apply(event, place: number, rank: rank)
        }

        /// Folds in `event`, an event of the model's entity at `place` (in ``ChronicleModel/entities``).
        package mutating func apply(_ event: Event, place number: Int, rank: EventRank) {
            applied = max(applied, rank.position)
            // The state and the ranks are changed where they are kept, found once each; an
            // entity with no unique field keeps no ranks.
            if fold.keepsUniqueRanks(ofEntityAt: number) {
                fold.apply(event, place: number, rank: rank, to: &states[number][event.id],
                           uniqueRanks: &uniqueRanks[number][event.id, default: [:]])
            } else {
                var none: [String: EventRank] = [:]
                fold.apply(event, place: number, rank: rank, to: &states[number][event.id], uniqueRanks: &none)
            }
        }

        /// Forgets everything about one entity, as if none of its events had been folded; a
        /// merge then folds its events again in their order.
        public mutating func forget(entity: String, id: UUID) {
            guard let number = number(of: entity) else { return }
            states[number][id] = nil
            uniqueRanks[number][id] = nil
        }

        /// Puts in a state folded elsewhere (a stored read model's), with the ranks of the
        /// writes that gave its unique fields their values: the entities a read needs, handed
        /// to the rules of ``shown(_:)``. Replaces what the snapshot held of that entity. A state
        /// of an entity the model does not declare is not kept.
        public mutating func load(_ state: EntityState, uniqueRanks ranks: [String: EventRank] = [:]) {
            guard let number = number(of: state.entity) else { return }
            states[number][state.id] = state
            uniqueRanks[number][state.id] = ranks.isEmpty ? nil : ranks
        }

        /// Per unique field of entity `id`, the rank of the write that gave its value.
        public func uniqueRanks(of entity: String, id: UUID) -> [String: EventRank] {
            number(of: entity).flatMap { uniqueRanks[$0][id] } ?? [:]
        }

        /// The entity as folded, deleted or not (nil when none of its events created it).
        public func state(of entity: String, id: UUID) -> EntityState? {
            number(of: entity).flatMap { states[$0][id] }
        }

        /// Entity `id` of the model's entity at `place` (in ``ChronicleModel/entities``) as
        /// folded: ``state(of:id:)`` without finding the entity by its name.
        public func state(ofEntityAt place: Int, id: UUID) -> EntityState? {
            states.indices.contains(place) ? states[place][id] : nil
        }

        /// ``uniqueRanks(of:id:)`` of the model's entity at `place`.
        public func uniqueRanks(ofEntityAt place: Int, id: UUID) -> [String: EventRank] {
            uniqueRanks.indices.contains(place) ? uniqueRanks[place][id] ?? [:] : [:]
        }

        /// Every entity of `entity` as folded, deleted or not, in no order.
        public func states(of entity: String) -> [EntityState] {
            number(of: entity).map { Array(states[$0].values) } ?? []
        }

        /// The live entities of `entity` whose unique `field` has the key `key`
        /// (``Uniqueness/key(_:)``), in no order; none when the field is not unique.
        public func holders(of entity: String, field: String, key: String) -> [UUID] {
            guard let uniqueness = model.entity(named: entity)?.field(named: field)?.unique else { return [] }
            return states(of: entity).filter { state in
                guard !state.isDeleted, case .text(let text)? = state.values[field] else { return false }
                return uniqueness.key(text) == key
            }.map(\.id)
        }

        /// The shown entity `id` of `entity`, as ``shown(_:)`` shows it.
        public func shown(_ entity: String, id: UUID) -> EntityState? {
            shown(entity).first { $0.id == id }
        }

        /// The shown entities of `entity`, sorted by id (lowercase): not deleted, their parents
        /// shown, each set with its shown members, colliding unique values told apart.
        public func shown(_ entity: String) -> [EntityState] {
            guard let number = number(of: entity) else { return [] }
            let declared = model.entities[number]
            var visible: [String: [UUID: Bool]] = [:]
            var shown = states[number].values.filter { isShown($0, &visible, depth: 0) }
            for field in declared.fields {
                guard case .references(let target) = field.type else { continue }
                let targets = self.number(of: target).map { states[$0] } ?? [:]
                for index in shown.indices {
                    let members = shown[index].members(of: field.name).filter { id in
                        targets[id].map { isShown($0, &visible, depth: 0) } ?? false
                    }
                    shown[index].values[field.name] = .ids(members)
                }
            }
            for field in declared.fields {
                guard let uniqueness = field.unique else { continue }
                showCollisions(of: field.name, under: uniqueness, in: &shown, ranks: uniqueRanks[number])
            }
            return shown.sorted { $0.id.sortsBefore($1.id) }
        }

        /// Whether `state` is shown: not deleted, and its parents (here) shown. Parent chains
        /// longer than the model's entities are a cycle of references: they stop there.
        private func isShown(_ state: EntityState, _ memo: inout [String: [UUID: Bool]], depth: Int) -> Bool {
            if let known = memo[state.entity]?[state.id] { return known }
            guard !state.isDeleted, let entity = model.entity(named: state.entity) else { return false }
            var shown = true
            if depth <= model.entities.count {
                for field in entity.fields where field.onParentDeletion != nil {
                    guard case .reference(let target) = field.type, let parentID = state.reference(field.name),
                          let parent = number(of: target).flatMap({ states[$0][parentID] }) else { continue }
                    if !isShown(parent, &memo, depth: depth + 1) { shown = false }
                }
            }
            memo[state.entity, default: [:]][state.id] = shown
            return shown
        }

        private func showCollisions(of field: String, under uniqueness: Uniqueness, in shown: inout [EntityState],
                                    ranks: [UUID: [String: EventRank]]) {
            var groups: [String: [Int]] = [:]
            for index in shown.indices {
                guard case .text(let text)? = shown[index].values[field] else { continue }
                groups[uniqueness.key(text), default: []].append(index)
            }
            for indices in groups.values where indices.count > 1 {
                let ordered = indices.sorted { a, b in
                    let rankA = ranks[shown[a].id]?[field], rankB = ranks[shown[b].id]?[field]
                    switch (rankA, rankB) {
                    case let (x?, y?): return x < y
                    case (.some, nil): return true
                    default: return false
                    }
                }
                for (place, index) in ordered.enumerated() {
                    guard case .text(let text)? = shown[index].values[field] else { continue }
                    shown[index].values[field] = .text(Uniqueness.shown(text, place: place + 1))
                }
            }
        }
    }
}

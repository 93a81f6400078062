import Foundation

extension ChronicleModel {
    /// Several commands decided as one batch: each decided on what the ones before it in the
    /// step decided (a note created, then labeled; a folder renamed, then its old name given to
    /// another), all appended together or none.
    ///
    /// ```swift
    /// var step = ChronicleModel.Step(model, reading: states)
    /// try step.decide(.init(entity: "Folder", id: inbox, action: .create(["name": "Inbox"])))
    /// try step.decide(.init(entity: "Note", id: note, action: .create(["day": "2026-12-01", "folderId": .id(inbox)])))
    /// step.decision   // both commands' events and conditions, one append
    /// ```
    public struct Step<Base: StateReading> {
        /// What the step appends: every command's events, in order, with their conditions.
        public private(set) var decision = Decision()
        /// The entities the step changed, as its commands left them.
        public private(set) var changed: Snapshot
        private var touched: Set<EntityKey> = []
        private var appended: [String: UInt64] = [:]
        private let decider: Decider
        private let reader: EventReader
        private let base: Base

        /// A step deciding on `reading` (the store as it is before the step).
        public init(_ model: ChronicleModel, reading: Base) {
            self.init(EventReader(model), reading: reading)
        }

        /// A step deciding on `reading` by the model `reader` reads (made once, it saves each
        /// step the making of its tables).
        public init(_ reader: EventReader, reading: Base) {
            decider = Decider(reader.model)
            self.reader = reader
            base = reading
            changed = Snapshot(reader.model)
        }

        /// Decides `command` on the store as the step's earlier commands left it, and adds what
        /// it decided to the step.
        /// - throws: ``CommandProblem`` when a rule refuses it (the step is unchanged then).
        public mutating func decide(_ command: Command) throws {
            let decided = try decider.decide(command, reading: StepReading(step: self))
            for event in decided.events {
                let read = try reader.read(type: event.type, stream: event.stream, data: event.data, schemaVersion: event.schemaVersion)
                try load(read.entity, read.id)
                changed.apply(read)
                appended[event.stream, default: 0] += 1
            }
            decision.events += decided.events
            for (stream, version) in decided.expectedVersions where decision.expectedVersions[stream] == nil {
                decision.expectedVersions[stream] = version
            }
            decision.conditions += decided.conditions
        }

        /// Entity `id` as the step leaves it so far (nil: none).
        public func state(of entity: String, id: UUID) throws -> EntityState? {
            touched.contains(EntityKey(entity: entity, id: id)) ? changed.state(of: entity, id: id) : try base.state(of: entity, id: id)
        }

        /// Puts the entity as the store holds it in the snapshot of changes, before a change.
        private mutating func load(_ entity: String, _ id: UUID) throws {
            guard touched.insert(EntityKey(entity: entity, id: id)).inserted, let state = try base.state(of: entity, id: id) else { return }
            changed.load(state)
        }

        fileprivate func isChanged(_ entity: String, _ id: UUID) -> Bool { touched.contains(EntityKey(entity: entity, id: id)) }
        fileprivate var model: ChronicleModel { decider.model }
        fileprivate var reading: Base { base }
        fileprivate func appendedEvents(of stream: String) -> UInt64 { appended[stream] ?? 0 }
        fileprivate var changedStates: [EntityState] { touched.compactMap { changed.state(of: $0.entity, id: $0.id) } }

        /// An entity by its kind and id.
        private struct EntityKey: Hashable {
            var entity: String
            var id: UUID
        }
    }
}

/// What a step's next command reads: the store as its earlier commands left it.
private struct StepReading<Base: ChronicleModel.StateReading>: ChronicleModel.StateReading {
    let step: ChronicleModel.Step<Base>

    var position: UInt64 { step.reading.position }

    func state(of entity: String, id: UUID) throws -> ChronicleModel.EntityState? {
        try step.state(of: entity, id: id)
    }

    func isShown(_ entity: String, id: UUID) throws -> Bool {
        try step.model.isShown(entity, id: id, states: state(of:id:))
    }

    func holder(of entity: String, field: String, key: String) throws -> UUID? {
        guard let declared = step.model.entity(named: entity), let declaredField = declared.field(named: field),
              let uniqueness = declaredField.unique else { return nil }
        func holds(_ state: ChronicleModel.EntityState) -> Bool {
            guard !state.isDeleted, case .text(let text)? = state.values[field] else { return false }
            return uniqueness.key(text) == key
        }
        if let changed = step.changedStates.first(where: { $0.entity == entity && holds($0) }) { return changed.id }
        // The store's holders, unless the step released the value from them: first the one the
        // store names (or the log's claim), then any other live one (after a merge two may
        // hold a value, the second shown with a suffix; releasing one leaves it to the next).
        let claim = ChronicleModel.Decider.uniqueKey(declared, declaredField, key)
        func released(_ id: UUID) -> Bool {
            step.isChanged(entity, id) && step.decision.conditions.contains(.release(claim, by: declared.stream(of: id)))
        }
        guard let holder = try step.reading.holder(of: entity, field: field, key: key) else { return nil }
        if !released(holder) { return holder }
        return try step.reading.holders(of: entity, field: field, key: key).first { !released($0) }
    }

    func holders(of entity: String, field: String, key: String) throws -> [UUID] {
        guard let uniqueness = step.model.entity(named: entity)?.field(named: field)?.unique else { return [] }
        let changed = step.changedStates.filter { state in
            guard state.entity == entity, !state.isDeleted, case .text(let text)? = state.values[field] else { return false }
            return uniqueness.key(text) == key
        }
        return try step.reading.holders(of: entity, field: field, key: key).filter { !step.isChanged(entity, $0) } + changed.map(\.id)
    }

    func children(of entity: String, field: String, parent: UUID) throws -> [ChronicleModel.EntityState] {
        var children = try step.reading.children(of: entity, field: field, parent: parent).filter { !step.isChanged(entity, $0.id) }
        children += step.changedStates.filter { $0.entity == entity && $0.reference(field) == parent }
        return children
    }

    func version(of stream: String) throws -> UInt64 {
        try step.reading.version(of: stream) + step.appendedEvents(of: stream)
    }
}

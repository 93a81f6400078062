import Foundation
import UUIDText
import JSONText

extension ChronicleModel {
    /// Decides commands by a model's rules: each field's type and rules, unique values,
    /// references to live entities, parents and their children. What a decision read is
    /// in its conditions, so the log refuses it if another process changed that meanwhile.
    ///
    /// ```swift
    /// let decision = try ChronicleModel.Decider(model).decide(command, reading: state)
    /// // decision.events, decision.expectedVersions, decision.conditions → one append
    /// ```
    public struct Decider: Sendable {
        public let model: ChronicleModel

        /// A decider for `model`.
        public init(_ model: ChronicleModel) {
            self.model = model
        }

        /// The events `command` appends and what they hold.
        /// - throws: ``CommandProblem`` when a rule refuses it (nothing is to be appended), or
        ///   what `reading` threw.
        public func decide(_ command: Command, reading: some StateReading) throws -> Decision {
            guard let entity = model.entity(named: command.entity) else {
                throw CommandProblem("model '\(model.name)' has no entity '\(command.entity)'")
            }
            var decision = Decision()
            var context = Context(model: model, entity: entity, id: command.id, reading: reading)
            switch command.action {
            case .create(let values): try context.create(values, into: &decision)
            case .update(let values): try context.update(values, into: &decision)
            case .delete: try context.delete(into: &decision)
            case .restore: try context.restore(into: &decision)
            case .add(let field, let member): try context.change(field, adding: [member], removing: [], into: &decision)
            case .remove(let field, let member): try context.change(field, adding: [], removing: [member], into: &decision)
            }
            return decision
        }
    }
}

extension ChronicleModel.Decider {
    /// The stream of entity `id`: `<entity's stream>-<lowercase id>`.
    static func stream(_ entity: ChronicleModel.Entity, _ id: UUID) -> String { entity.stream(of: id) }

    /// The key the live entity holding a unique value claims: `<stream>-<field>:<key>`, the
    /// field by its first name (a rename keeps its claims).
    public static func uniqueKey(_ entity: ChronicleModel.Entity, _ field: ChronicleModel.Field, _ key: String) -> String {
        "\(entity.stream)-\(field.formerNames.first ?? field.name):\(key)"
    }

    /// The key a parent's children touch: `<parent stream>-<id>/<child stream>s`.
    public static func childrenKey(parent: ChronicleModel.Entity, _ id: String, child: ChronicleModel.Entity) -> String {
        "\(parent.stream)-\(id)/\(child.stream)s"
    }

    /// The touch that `value`, written to `field` of `entity`, makes on its parent's children
    /// key (``childrenKey(parent:_:child:)``), so that a deletion of that parent decided
    /// meanwhile decides again; nil unless the field refers to a parent whose deletion reaches
    /// the entity and `value` names one.
    public static func parentTouch(of entity: ChronicleModel.Entity, _ field: ChronicleModel.Field,
                                   _ value: ChronicleModel.FieldValue?, in model: ChronicleModel) -> ChronicleModel.Condition? {
        guard field.onParentDeletion != nil, case .reference(let target) = field.type, case .text(let text)? = value,
              let parent = model.entity(named: target) else { return nil }
        return .touch(childrenKey(parent: parent, text, child: entity))
    }

    /// One command's decision in the making.
    struct Context<Reading: ChronicleModel.StateReading> {
        typealias FieldValue = ChronicleModel.FieldValue
        typealias Problem = ChronicleModel.CommandProblem
        typealias Decision = ChronicleModel.Decision

        let model: ChronicleModel
        let entity: ChronicleModel.Entity
        let id: UUID
        let reading: Reading

        var stream: String { ChronicleModel.Decider.stream(entity, id) }
        var named: String { Self.named(entity, id) }

        static func named(_ entity: ChronicleModel.Entity, _ id: UUID) -> String { "\(entity.name.lowercased()) \(id.uuidString.lowercased())" }

        // MARK: Create and update

        mutating func create(_ given: [String: FieldValue], into decision: inout Decision) throws {
            guard try reading.state(of: entity.name, id: id) == nil else {
                throw Problem("\(named) already exists", reason: .alreadyExists(entity: entity.name, id: id))
            }
            var values: [String: FieldValue] = [:]
            var flags: [(ChronicleModel.Field, Bool)] = []
            var members: [(ChronicleModel.Field, [UUID])] = []
            for (name, raw) in given.sorted(by: { $0.key < $1.key }) {
                let field = try declared(name)
                if let value = try checkedReferences(field, raw) {
                    if field.setBy == nil {
                        values[name] = value
                    } else if case .boolean(let on) = value, on != (field.defaultValue == .boolean(true)) {
                        flags.append((field, on))
                    } else if case .ids(let ids) = value, !ids.isEmpty {
                        members.append((field, ids))
                    }
                }
            }
            for field in entity.fields where ChronicleModel.EventReader.isRequired(field) && values[field.name] == nil {
                throw Problem("\(field.name) is required", reason: .required(field: field.name))
            }
            for field in entity.fields {
                guard let uniqueness = field.unique, case .text(let text)? = values[field.name] else { continue }
                try claim(field, uniqueness.key(text), shown: text, into: &decision)
            }
            touchParents(of: values, into: &decision)
            decision.expectedVersions[stream] = 0
            append(entity.events.created, data: values, schemaVersion: entity.eventSchemaVersion, into: &decision)
            for (field, on) in flags { append(on ? field.setBy!.on : field.setBy!.off, data: [:], into: &decision) }
            for (field, ids) in members {
                for member in ids { append(field.setBy!.on, data: [field.member ?? "id": .text(member.uuidString.lowercased())], into: &decision) }
                try requireUnchanged(ids, of: field, into: &decision)
            }
        }

        mutating func update(_ given: [String: FieldValue], into decision: inout Decision) throws {
            let state = try live()
            guard !given.isEmpty else { throw Problem("nothing to update: give at least one field to change", reason: .nothingToUpdate) }
            var values: [String: FieldValue] = [:]
            var cleared: [String] = []
            for (name, given) in given.sorted(by: { $0.key < $1.key }) {
                let field = try declared(name)
                // A set cleared is a set with no member.
                let raw = given == .null && field.type.name == "references" ? FieldValue.ids([]) : given
                guard let value = try checkedReferences(field, raw) else {
                    // Null, or empty text of a field that keeps none: the field is cleared.
                    guard FieldValue.isClearable(field) else {
                        throw Problem("\(name) is required: it cannot be cleared", reason: .required(field: name))
                    }
                    // Written even when the field has no value, as the todo app writes an empty memo.
                    cleared.append(name)
                    continue
                }
                switch (field.setBy, value) {
                case (let events?, .boolean(let on)):
                    let current = state.values[name] == .boolean(true)
                    guard on != current else { throw Problem("\(named) \(name) is already \(on)", reason: .alreadySet(field: name, value: on)) }
                    decision.expectedVersions[stream] = try reading.version(of: stream)
                    append(on ? events.on : events.off, data: [:], into: &decision)
                case (_?, .ids(let ids)):
                    let current = Set(state.members(of: name))
                    try change(name, adding: ids.filter { !current.contains($0) }, removing: current.subtracting(ids).sorted { $0.uuidString < $1.uuidString },
                               into: &decision, checked: true)
                default:
                    values[name] = value
                }
            }
            guard !values.isEmpty || !cleared.isEmpty else { return }
            for name in cleared {
                // A cleared unique value is free for others.
                guard let uniqueness = entity.field(named: name)?.unique, case .text(let old)? = state.values[name] else { continue }
                decision.conditions.append(.release(ChronicleModel.Decider.uniqueKey(entity, entity.field(named: name)!, uniqueness.key(old)), by: stream))
            }
            for field in entity.fields {
                guard let uniqueness = field.unique, case .text(let text)? = values[field.name] else { continue }
                let old: String? = if case .text(let old)? = state.values[field.name] { uniqueness.key(old) } else { nil }
                let new = uniqueness.key(text)
                guard old != new else { continue }
                if let old { decision.conditions.append(.release(ChronicleModel.Decider.uniqueKey(entity, field, old), by: stream)) }
                try claim(field, new, shown: text, into: &decision)
            }
            touchParents(of: values.filter { state.values[$0.key] != $0.value }, into: &decision)
            var data = values
            for name in cleared {
                // Empty text for a text field that keeps none (as the todo app writes a memo
                // removed), null for any other.
                data[name] = entity.field(named: name)?.rules.contains(.emptyIsAbsent) == true ? .text("") : .null
            }
            decision.expectedVersions[stream] = try reading.version(of: stream)
            append(entity.events.updated, data: data, schemaVersion: entity.eventSchemaVersion, into: &decision, first: true)
        }

        // MARK: Reading and checking

        /// The entity, shown; refused when unknown, deleted, or hidden by a deleted parent (a
        /// todo of a deleted user, written on another device before it learned of the deletion).
        func live() throws -> ChronicleModel.EntityState {
            guard let state = try reading.state(of: entity.name, id: id) else {
                throw Problem("unknown \(named)", reason: .unknown(entity: entity.name, id: id))
            }
            guard !state.isDeleted, try !hasParents(state) || reading.isShown(entity.name, id: id) else {
                throw Problem("\(named) is deleted", reason: .deleted(entity: entity.name, id: id))
            }
            return state
        }

        /// Makes the batch require each of `members` (of the set `field`) as read: a member
        /// deleted meanwhile fails it, so that no member joins a set after its own deletion.
        func requireUnchanged(_ members: [UUID], of field: ChronicleModel.Field, into decision: inout Decision) throws {
            guard case .references(let target) = field.type, let member = model.entity(named: target) else { return }
            for id in members {
                let memberStream = ChronicleModel.Decider.stream(member, id)
                if decision.expectedVersions[memberStream] == nil {
                    decision.expectedVersions[memberStream] = try reading.version(of: memberStream)
                }
            }
        }

        /// Whether the entity names a parent whose deletion reaches it (only then can it be hidden).
        private func hasParents(_ state: ChronicleModel.EntityState) -> Bool {
            entity.fields.contains { $0.onParentDeletion != nil && state.reference($0.name) != nil }
        }

        func declared(_ name: String) throws -> ChronicleModel.Field {
            guard let field = entity.field(named: name) else {
                throw Problem("\(entity.name) has no field '\(name)' (it has \(entity.fields.map(\.name).joined(separator: ", ")))")
            }
            return field
        }

        /// `raw` checked by the field's rules; a reference, and each member of a set, must name a
        /// shown entity.
        func checkedReferences(_ field: ChronicleModel.Field, _ raw: FieldValue) throws -> FieldValue? {
            let value = try field.checked(raw)
            switch (field.type, value) {
            case (.reference(let target), .text(let text)?):
                if let parent = UUID(hyphenated: text) { try requireShown(target, parent) }
            case (.references(let target), .ids(let ids)?):
                for member in ids { try requireShown(target, member) }
            default:
                break
            }
            return value
        }

        func requireShown(_ target: String, _ id: UUID) throws {
            guard let entity = model.entity(named: target) else { return }
            guard let state = try reading.state(of: target, id: id) else {
                throw Problem("unknown \(Self.named(entity, id))", reason: .unknown(entity: target, id: id))
            }
            guard !state.isDeleted, try reading.isShown(target, id: id) else {
                throw Problem("\(Self.named(entity, id)) is deleted", reason: .deleted(entity: target, id: id))
            }
        }

        mutating func claim(_ field: ChronicleModel.Field, _ key: String, shown text: String, into decision: inout Decision) throws {
            if let holder = try reading.holder(of: entity.name, field: field.name, key: key), holder != id {
                throw Problem("a \(entity.name.lowercased()) with \(field.name) \(JSONQuoting.quoted(text)) already exists",
                              reason: .taken(field: field.name, value: text))
            }
            // A value a live entity is shown under after a merge (`Work (2)`, the second `work`)
            // is taken too, while that many hold the value: two must not show one value.
            if let uniqueness = field.unique, let (value, place) = ChronicleModel.Uniqueness.place(in: text),
               try reading.holders(of: entity.name, field: field.name, key: uniqueness.key(value)).count >= place {
                throw Problem("a \(entity.name.lowercased()) with \(field.name) \(JSONQuoting.quoted(text)) already exists",
                              reason: .taken(field: field.name, value: text))
            }
            decision.conditions.append(.claim(ChronicleModel.Decider.uniqueKey(entity, field, key), by: stream))
        }

        /// A child's creation or move tells its parent's deleters (`user-<id>/todos`).
        func touchParents(of values: [String: FieldValue], into decision: inout Decision) {
            for field in entity.fields {
                if let touch = ChronicleModel.Decider.parentTouch(of: entity, field, values[field.name], in: model) {
                    decision.conditions.append(touch)
                }
            }
        }

        func append(_ type: String, data: [String: FieldValue], schemaVersion: Int = 1, into decision: inout Decision, first: Bool = false) {
            append(type, stream: stream, data: data, schemaVersion: schemaVersion, into: &decision, first: first)
        }

        func append(_ type: String, stream: String, data: [String: FieldValue], schemaVersion: Int = 1,
                    into decision: inout Decision, first: Bool = false) {
            let event = ChronicleModel.DecidedEvent(stream: stream, type: type, data: ChronicleModel.eventData(data), schemaVersion: schemaVersion)
            if first { decision.events.insert(event, at: 0) } else { decision.events.append(event) }
        }
    }
}

extension ChronicleModel {
    /// An event's data as a model writes it: a JSON object of `values`, keys sorted by their
    /// UTF-8 bytes, no white space, text escaped only where JSON requires it. The bytes are
    /// hashed into the log's chain: the same values give the same bytes in every release.
    ///
    /// ```swift
    /// ChronicleModel.eventData(["title": "Pay rent", "day": "2026-03-01"])
    /// // {"day":"2026-03-01","title":"Pay rent"}
    /// ```
    public static func eventData(_ values: [String: FieldValue]) -> Data {
        let members = values.sorted { Array($0.key.utf8).lexicographicallyPrecedes($1.key.utf8) }
            .map { JSONQuoting.quoted($0.key) + ":" + $0.value.json }
        return Data(("{" + members.joined(separator: ",") + "}").utf8)
    }
}

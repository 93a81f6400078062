import Foundation
import JSONText
import UUIDText

extension ChronicleModel {
    /// Reads stored events under a model: the type names the entity and what the event does,
    /// the stream its id, the data the fields' values (``Event``).
    ///
    /// A stored event is a fact: the fields' rules (lengths, ranges, uniqueness) are not checked
    /// again, only that each value has its field's type. Members the model does not declare are
    /// passed over (an event written by a newer version of the app). `null` in an update clears
    /// an optional field (``FieldValue/null``), but for text that keeps no empty text (which
    /// empty text clears); anywhere else it counts as absent.
    ///
    /// ```swift
    /// let reader = ChronicleModel.EventReader(model)
    /// let event = try reader.read(type: "NoteCreated", stream: "note-\(id)", data: data)
    /// ```
    public struct EventReader: Sendable {
        /// The model read by.
        public let model: ChronicleModel
        private let kinds: [String: (entity: Int, kind: Kind)]
        private let streams: [String: Int]
        /// Per entity (by place), its fields' names: the layout of the values its events give.
        private let layouts: [[String]]

        private enum Kind: Sendable {
            case created, updated, deleted, restored
            case set(field: String, to: Bool)
            case added(field: String, member: String)
            case removed(field: String, member: String)
        }

        /// A reader of events under `model`.
        public init(_ model: ChronicleModel) {
            self.model = model
            var kinds: [String: (entity: Int, kind: Kind)] = [:]
            var streams: [String: Int] = [:]
            for (index, entity) in model.entities.enumerated() {
                streams[entity.stream] = index
                kinds[entity.events.created] = (index, .created)
                kinds[entity.events.updated] = (index, .updated)
                kinds[entity.events.deleted] = (index, .deleted)
                kinds[entity.events.restored] = (index, .restored)
                for field in entity.fields {
                    guard let events = field.setBy else { continue }
                    if field.type == .boolean {
                        kinds[events.on] = (index, .set(field: field.name, to: true))
                        kinds[events.off] = (index, .set(field: field.name, to: false))
                    } else if let member = field.member {
                        kinds[events.on] = (index, .added(field: field.name, member: member))
                        kinds[events.off] = (index, .removed(field: field.name, member: member))
                    }
                }
            }
            self.kinds = kinds
            self.streams = streams
            layouts = model.entities.map { $0.fields.map(\.name) }
        }

        /// The place (in ``ChronicleModel/entities``) of the entity whose events are of `type`.
        package func entityPlace(ofType type: String) -> Int? { kinds[type]?.entity }

        /// Whether the model declares events of `type`.
        public func knows(type: String) -> Bool { kinds[type] != nil }

        /// The entity and id a stream names (`todo-<lowercase uuid>`), or nil.
        public func entity(ofStream stream: String) -> (entity: Entity, id: UUID)? {
            guard let dash = stream.firstIndex(of: "-"), let index = streams[String(stream[..<dash])],
                  let id = UUID(canonical: stream[stream.index(after: dash)...]) else { return nil }
            return (model.entities[index], id)
        }

        /// Reads one stored event.
        /// - parameters:
        ///   - schemaVersion: the shape of `data`, as the event's record says: an older one than
        ///     the entity's is read with the text of fields that keep it in canonical composition
        ///     composed (``FieldRule/canonicalComposition``: why a shape is raised); a newer one is
        ///     refused.
        /// - throws: ``EventProblem`` naming what is wrong: an unknown type, a stream that is not
        ///   the entity's, data that is not one JSON object, a value of the wrong type, a missing one.
        public func read(type: String, stream: String, data: Data, schemaVersion: Int = 1) throws(EventProblem) -> Event {
            guard let (index, kind) = kinds[type] else { throw EventProblem("unknown event type '\(type)'") }
            let entity = model.entities[index]
            guard let (named, id) = self.entity(ofStream: stream), named.name == entity.name else {
                throw EventProblem("\(type) stream '\(stream)' is not '\(entity.stream)-<lowercase uuid>'")
            }
            guard schemaVersion >= 1 else { throw EventProblem("\(type) schema version \(schemaVersion) is not valid") }
            guard schemaVersion <= entity.eventSchemaVersion else {
                throw EventProblem("\(type) data of schema version \(schemaVersion) is newer than model '\(model.name)' "
                                   + "version \(model.version) reads (\(entity.eventSchemaVersion))")
            }
            var members = try Self.members(type: type, data: data)
            let change: Event.Change
            switch kind {
            case .created:
                var values = try Self.values(of: entity, laid: layouts[index], in: &members, type: type)
                Self.compose(&values, of: entity, from: schemaVersion)
                for (place, field) in entity.fields.enumerated() where Self.isRequired(field) && values.value(at: place, named: field.name) == nil {
                    throw EventProblem("\(type) data is missing '\(field.name)'")
                }
                change = .created(values)
            case .updated:
                var values = try Self.values(of: entity, laid: layouts[index], in: &members, type: type, nullClears: true)
                Self.compose(&values, of: entity, from: schemaVersion)
                change = .updated(values)
            case .deleted:
                change = .deleted
            case .restored:
                change = .restored
            case .set(let field, let on):
                change = .set(field: field, to: on)
            case .added(let field, let member):
                change = .added(field: field, member: try Self.member(member, in: members, type: type))
            case .removed(let field, let member):
                change = .removed(field: field, member: try Self.member(member, in: members, type: type))
            }
            return Event(type: type, entity: entity.name, id: id, change: change)
        }

        /// A field an entity's creation must give: not optional, no default, not set by events
        /// of its own, not a set.
        static func isRequired(_ field: Field) -> Bool {
            !field.isOptional && field.defaultValue == nil && field.setBy == nil && field.type.name != "references"
        }

        private static func compose(_ values: inout FieldValues, of entity: Entity, from version: Int) {
            guard version < entity.eventSchemaVersion else { return }
            for field in entity.fields where field.rules.contains(.canonicalComposition) {
                if case .text(let text)? = values[field.name] { values[field.name] = .text(text.precomposedStringWithCanonicalMapping) }
            }
        }

        private static func member(_ name: String, in members: [String: DataValue], type: String) throws(EventProblem) -> UUID {
            guard case .string(let text)? = members[name] else {
                throw EventProblem("\(type) data " + (members[name] == nil ? "is missing '\(name)'" : "'\(name)' must be a string"))
            }
            guard let id = UUID(canonical: text) else {
                throw EventProblem("\(type) data '\(name)' must be a lowercase UUID (got \(JSONQuoting.quoted(text)))")
            }
            return id
        }

        /// The values the data gives for the entity's fields written by creations and updates,
        /// in slots named `layout` (the entity's fields' names).
        private static func values(of entity: Entity, laid layout: [String], in members: inout [String: DataValue],
                                   type: String, nullClears: Bool = false) throws(EventProblem) -> FieldValues {
            var values = FieldValues(layout: layout)
            for (place, field) in entity.fields.enumerated() where field.setBy == nil {
                // Under its name, or one it had before a rename (the newest first).
                guard let member = members[field.name] ?? field.formerNames.reversed().first(where: { members[$0] != nil }).flatMap({ members[$0] })
                else { continue }
                if case .null = member {
                    // In an update, null clears a field that may be cleared; else it is absent. A
                    // text field that keeps no empty text is cleared by empty text: null in its
                    // place is absent, as the todo app has always read a memo of null.
                    if nullClears, FieldValue.isClearable(field), !field.rules.contains(.emptyIsAbsent) { values.set(.null, at: place, named: field.name) }
                    continue
                }
                values.set(try converted(member, of: field, type: type), at: place, named: field.name)
            }
            return values
        }

        /// The member as the field's value; one of a type the field had before, converted.
        private static func converted(_ member: DataValue, of field: Field, type: String) throws(EventProblem) -> FieldValue {
            // A timestamp reads any string: a day written when the field held days is told by its shape.
            if field.type == .timestamp, field.formerTypes.contains(.day), case .string(let text) = member, FieldRule.isCalendarDay(text) {
                return FieldValue.text(text).converted(from: .day, to: .timestamp) ?? .text(text)
            }
            do {
                return try value(member, of: field, type: type)
            } catch {
                // Written when the field had another type: the oldest that reads it (an integer
                // literal reads as the integer it was, before a number).
                for old in field.formerTypes {
                    var former = field
                    former.type = old
                    if let read = try? value(member, of: former, type: type), let value = read.converted(from: old, to: field.type) {
                        return value
                    }
                }
                throw error
            }
        }

        private static func value(_ member: DataValue, of field: Field, type: String) throws(EventProblem) -> FieldValue {
            func wrong(_ expected: String) -> EventProblem {
                EventProblem("\(type) data '\(field.name)' must be \(expected) (got \(member.kind))")
            }
            func invalid(_ text: String, _ expected: String) -> EventProblem {
                EventProblem("\(type) data '\(field.name)' must be \(expected) (got \(JSONQuoting.quoted(text)))")
            }
            switch (field.type, member) {
            case (.text, .string(let text)), (.timestamp, .string(let text)):
                return .text(text)
            case (.day, .string(let text)):
                guard FieldRule.isCalendarDay(text) else { throw invalid(text, "a real calendar day as YYYY-MM-DD") }
                return .text(text)
            case (.decimal, .string(let text)):
                guard FieldRule.isDecimal(text) else { throw invalid(text, "a decimal number as digits") }
                return .text(text)
            case (.reference, .string(let text)):
                guard let id = UUID(hyphenated: text) else { throw invalid(text, "a UUID") }
                return .text(id.lowercasedString)
            case (.integer, .number(let literal)):
                guard !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else { throw invalid(literal, "an integer") }
                guard let value = Int(literal) else { throw invalid(literal, "a 64-bit integer") }
                return .integer(value)
            case (.number, .number(let literal)):
                guard let value = Double(literal), value.isFinite else { throw invalid(literal, "a finite number") }
                return .number(value)
            case (.boolean, .bool(let value)):
                return .boolean(value)
            case (.references, .ids(let ids)):
                return .ids(ids)
            case (.text, _), (.timestamp, _), (.day, _), (.decimal, _), (.reference, _): throw wrong("a string")
            case (.integer, _): throw wrong("an integer")
            case (.number, _): throw wrong("a number")
            case (.boolean, _): throw wrong("a boolean")
            case (.references, _): throw wrong("an array of lowercase UUIDs")
            }
        }
    }
}

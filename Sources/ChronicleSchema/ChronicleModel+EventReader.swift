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
        let layouts: [[String]]
        /// Per entity (by place), ``fieldPlaces(of:)``.
        let fieldPlaces: [[String: Int]?]
        /// Per entity (by place), what reading its events needs of its declaration: an event is
        /// read without copying the entity's (a copy retains each of its parts).
        private let plans: [EntityPlan]
        /// Per entity (by place), per field (by place), how its value is read (``FieldReading``).
        let fieldReadings: [[FieldReading]]

        private struct EntityPlan: Sendable {
            let name: String
            let stream: String
            let eventSchemaVersion: Int
            /// The places of the fields a creation must give (``isRequired(_:)``).
            let required: [Int]

            init(_ entity: Entity) {
                name = entity.name
                stream = entity.stream
                eventSchemaVersion = entity.eventSchemaVersion
                required = entity.fields.indices.filter { EventReader.isRequired(entity.fields[$0]) }
            }
        }

        private enum Kind: Sendable {
            case created, updated, deleted, restored
            case set(field: String, to: Bool)
            case added(field: String, member: String)
            case removed(field: String, member: String)

            /// Whether its data gives field values (read straight into slots).
            var givesFields: Bool {
                switch self {
                case .created, .updated: true
                default: false
                }
            }
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
            fieldPlaces = model.entities.map(Self.fieldPlaces(of:))
            plans = model.entities.map(EntityPlan.init)
            fieldReadings = model.entities.map { $0.fields.map(FieldReading.init) }
        }

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
            try readPlaced(type: type, stream: stream, data: data, schemaVersion: schemaVersion).event
        }

        /// ``read(type:stream:data:schemaVersion:)``, with the event's entity's place in
        /// ``ChronicleModel/entities``, as the form of `readPlaced` that reads a record's bytes
        /// in place returns it.
        public func readPlaced(type: String, stream: String, data: Data,
                               schemaVersion: Int = 1) throws(EventProblem) -> (event: Event, place: Int) {
            var (type, stream) = (type, stream)
            let read = type.withUTF8 { type in
                stream.withUTF8 { stream in
                    data.withUnsafeBytes { data in
                        Result { () throws(EventProblem) -> (event: Event, place: Int) in
                            try readPlaced(type: UnsafeRawBufferPointer(type), stream: UnsafeRawBufferPointer(stream),
                                           data: data, schemaVersion: schemaVersion)
                        }
                    }
                }
            }
            return try read.get()
        }

        /// Reads one stored event from its record's bytes, in place (a rebuild reads the log so),
        /// as ``read(type:stream:data:schemaVersion:)`` does, with UTF-8 `type` and `stream`; returns
        /// it with its entity's place in ``ChronicleModel/entities``, so that an app making its own
        /// typed events from the model's tells the entity by a number, not by its name.
        ///
        /// ```swift
        /// let (event, place) = try reader.readPlaced(type: type, stream: stream, data: data, schemaVersion: 1)
        /// if place == notePlace, case .created(let values) = event.change { … }
        /// ```
        public func readPlaced(type typeBytes: UnsafeRawBufferPointer, stream streamBytes: UnsafeRawBufferPointer,
                                data: UnsafeRawBufferPointer, schemaVersion: Int) throws(EventProblem) -> (event: Event, place: Int) {
            // The type's name as the model spells it: shared, not copied, for each event.
            guard let known = kinds.index(forKey: String(decoding: typeBytes, as: UTF8.self)) else {
                throw EventProblem("unknown event type \(EventProblem.quotedName(String(decoding: typeBytes, as: UTF8.self)))")
            }
            let (type, (index, kind)) = kinds[known]
            let plan = plans[index]
            guard let (named, id) = self.entity(ofStream: streamBytes), named == index else {
                throw EventProblem("\(type) stream \(EventProblem.quotedName(String(decoding: streamBytes, as: UTF8.self))) is not '\(plan.stream)-<lowercase uuid>'")
            }
            guard schemaVersion >= 1 else { throw EventProblem("\(type) schema version \(schemaVersion) is not valid") }
            guard schemaVersion <= plan.eventSchemaVersion else {
                throw EventProblem("\(type) data of schema version \(schemaVersion) is newer than model '\(model.name)' "
                                   + "version \(model.version) reads (\(plan.eventSchemaVersion))")
            }
            // Data that gives no fields is still checked to be one JSON object.
            let members = kind.givesFields ? [:] : try Self.members(type: type, data: data)
            let change: Event.Change
            switch kind {
            case .created:
                var values = try fieldValues(ofEntityAt: index, type: type, data: data, nullClears: false)
                if schemaVersion < plan.eventSchemaVersion { Self.compose(&values, of: model.entities[index]) }
                for place in plan.required where !values.holdsValue(at: place, named: layouts[index][place]) {
                    throw EventProblem("\(type) data is missing '\(layouts[index][place])'")
                }
                change = .created(values)
            case .updated:
                var values = try fieldValues(ofEntityAt: index, type: type, data: data, nullClears: true)
                if schemaVersion < plan.eventSchemaVersion { Self.compose(&values, of: model.entities[index]) }
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
            return (Event(type: type, entity: plan.name, id: id, change: change), index)
        }

        /// The place of the entity and the id a stream's UTF-8 name gives, or nil.
        private func entity(ofStream stream: UnsafeRawBufferPointer) -> (place: Int, id: UUID)? {
            guard let dash = stream.firstIndex(of: UInt8(ascii: "-")),
                  let index = streams[String(decoding: UnsafeRawBufferPointer(rebasing: stream[..<dash]), as: UTF8.self)],
                  let id = UUID(canonical: UnsafeRawBufferPointer(rebasing: stream[(dash + 1)...])) else { return nil }
            return (index, id)
        }

        /// A field an entity's creation must give: not optional, no default, not set by events
        /// of its own, not a set.
        static func isRequired(_ field: Field) -> Bool {
            !field.isOptional && field.defaultValue == nil && field.setBy == nil && field.type.name != "references"
        }

        /// Composes the text of the fields that keep it in canonical composition, in data of
        /// an older schema version than the entity's.
        private static func compose(_ values: inout FieldValues, of entity: Entity) {
            for field in entity.fields where field.rules.contains(.canonicalComposition) {
                if case .text(let text)? = values[field.name] { values[field.name] = .text(text.precomposedStringWithCanonicalMapping) }
            }
        }

        private static func member(_ name: String, in members: [String: DataValue], type: String) throws(EventProblem) -> UUID {
            guard case .string(let text)? = members[name] else {
                throw EventProblem("\(type) data " + (members[name] == nil ? "is missing '\(name)'" : "'\(name)' must be a string"))
            }
            guard let id = UUID(canonical: text) else {
                throw EventProblem("\(type) data '\(name)' must be a lowercase UUID (got \(EventProblem.quotedValue(text)))")
            }
            return id
        }
    }
}

import Foundation

/// An app's model, declared in Swift: its entities with their typed fields and rules, and the
/// aggregates its read models keep. A store records the model it was opened with, so tools
/// read any app's store without the app's code.
///
/// ```swift
/// let notes = try ChronicleModel("notes", version: 1) { model in
///     model.entity("Folder") { folder in
///         folder.text("name", .notBlank, .maxLength(80), unique: .caseFolded)
///     }
///     model.entity("Note") { note in
///         note.text("body", .maxLength(10_000))
///         note.day("day")
///         note.reference("folderId", to: "Folder", onParentDeletion: .deleteWithParent)
///         note.references("labels", to: "Label")
///     }
///     model.entity("Label") { label in
///         label.text("name", .notBlank)
///     }
///     model.aggregate("NotesPerDay", of: "Note", groupedBy: "day") { day in
///         day.count("notes")
///     }
/// }
/// ```
///
/// Names are the app's: entity names become event types (`NoteCreated`, …) and stream
/// prefixes (`note-<id>`), field names the members of events and of the JSON the CLI prints.
public struct ChronicleModel: Sendable, Hashable {
    /// The model's name, e.g. `todo-app`: what a store records it under.
    public var name: String
    /// Raised by the app whenever the model changes (1, 2, …).
    public var version: Int
    /// The entities, in the order declared.
    public var entities: [Entity]
    /// The aggregates, in the order declared.
    public var aggregates: [Aggregate]

    /// Declares a model and checks it.
    /// - throws: ``ChronicleModelError`` naming the first entity, field or aggregate that is wrong.
    public init(_ name: String, version: Int, _ declare: (inout ModelDeclaration) throws -> Void) throws {
        var declaration = ModelDeclaration()
        try declare(&declaration)
        if let (entity, field, problem) = declaration.problems.first {
            throw ChronicleModelError(name, entity: entity, field: field, problem)
        }
        self.name = name
        self.version = version
        self.entities = declaration.entities
        self.aggregates = declaration.aggregates
        try validate()
    }

    /// A model from its parts, unchecked: ``validate()`` checks it.
    public init(name: String, version: Int, entities: [Entity], aggregates: [Aggregate] = []) {
        self.name = name
        self.version = version
        self.entities = entities
        self.aggregates = aggregates
    }

    /// The entity named `name`, or nil.
    public func entity(named name: String) -> Entity? {
        entities.first { $0.name == name }
    }

    /// The entity whose streams are `<prefix>-<id>`, or nil.
    public func entity(streamPrefix prefix: String) -> Entity? {
        entities.first { $0.stream == prefix }
    }
}

extension ChronicleModel {
    /// Where a model's entities and aggregates are declared (the closure of
    /// ``ChronicleModel/init(_:version:_:)``).
    public struct ModelDeclaration: Sendable {
        var entities: [Entity] = []
        var aggregates: [Aggregate] = []
        /// What an entity's `index` or `rename` found wrong, by entity and field.
        var problems: [(String, String, String)] = []

        /// Declares an entity.
        /// - parameters:
        ///   - name: e.g. `Todo`; events are `TodoCreated`, `TodoUpdated`, `TodoDeleted`,
        ///     `TodoRestored` unless `events` names them.
        ///   - stream: the stream prefix (`todo` for `todo-<id>`); the name lowercased by default.
        ///   - eventSchemaVersion: the shape of its events' data (1 unless they were reshaped).
        public mutating func entity(_ name: String, stream: String? = nil, events: EventNames? = nil,
                                    eventSchemaVersion: Int = 1,
                                    _ declare: (inout EntityDeclaration) throws -> Void) rethrows {
            var fields = EntityDeclaration()
            try declare(&fields)
            problems += fields.problems.map { (name, $0.field, $0.problem) }
            entities.append(Entity(name: name, stream: stream ?? name.lowercased(),
                                   events: events ?? .standard(for: name), eventSchemaVersion: eventSchemaVersion,
                                   fields: fields.fields))
        }

        /// Declares an aggregate: one row per value of `field` of the live entities of `entity`.
        /// - parameters:
        ///   - key: the row's member holding the grouped value (the field's name by default).
        public mutating func aggregate(_ name: String, of entity: String, groupedBy field: String, as key: String? = nil,
                                       _ declare: (inout AggregateDeclaration) throws -> Void) rethrows {
            var measures = AggregateDeclaration()
            try declare(&measures)
            aggregates.append(Aggregate(name: name, entity: entity, groupedBy: field, key: key ?? field,
                                        measures: measures.measures))
        }
    }
}

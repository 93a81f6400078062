extension ChronicleModel {
    /// A kind of thing the app stores: a user, a todo, a note. Each has a UUID `id`, a stream
    /// per entity (`<stream>-<id>`), and typed fields.
    public struct Entity: Sendable, Hashable {
        /// e.g. `Todo`.
        public var name: String
        /// The stream prefix: `todo` for `todo-<id>`.
        public var stream: String
        /// The type names of its events.
        public var events: EventNames
        /// The shape of its events' data; raised when the app reshapes them.
        public var eventSchemaVersion: Int
        /// The fields, in the order declared (`id` is implicit).
        public var fields: [Field]

        /// An entity from its parts (``ChronicleModel/ModelDeclaration/entity(_:stream:events:eventSchemaVersion:_:)`` is the usual way).
        public init(name: String, stream: String, events: EventNames, eventSchemaVersion: Int = 1, fields: [Field]) {
            self.name = name
            self.stream = stream
            self.events = events
            self.eventSchemaVersion = eventSchemaVersion
            self.fields = fields
        }

        /// The field named `name`, or nil.
        public func field(named name: String) -> Field? {
            fields.first { $0.name == name }
        }

        /// Every event type of the entity: the four of ``events`` and those fields name.
        public var eventTypes: [String] {
            var types = [events.created, events.updated, events.deleted, events.restored]
            for field in fields {
                if let set = field.setBy { types += [set.on, set.off] }
            }
            return types
        }
    }

    /// The type names of an entity's four common events.
    public struct EventNames: Sendable, Hashable, Codable {
        public var created: String
        public var updated: String
        public var deleted: String
        public var restored: String

        public init(created: String, updated: String, deleted: String, restored: String) {
            self.created = created
            self.updated = updated
            self.deleted = deleted
            self.restored = restored
        }

        /// `<Name>Created`, `<Name>Updated`, `<Name>Deleted`, `<Name>Restored`.
        public static func standard(for entity: String) -> EventNames {
            EventNames(created: entity + "Created", updated: entity + "Updated",
                       deleted: entity + "Deleted", restored: entity + "Restored")
        }
    }

    /// Where an entity's fields are declared (the closure of ``ModelDeclaration/entity(_:stream:events:eventSchemaVersion:_:)``).
    public struct EntityDeclaration: Sendable {
        var fields: [Field] = []

        /// Text: trimmed of nothing, stored as given after the rules' normalizations.
        public mutating func text(_ name: String, _ rules: FieldRule..., optional: Bool = false,
                                  default value: FieldValue? = nil, unique: Uniqueness? = nil) {
            fields.append(Field(name: name, type: .text, isOptional: optional, defaultValue: value, rules: rules, unique: unique))
        }

        /// A whole number (64 bits).
        public mutating func integer(_ name: String, _ rules: FieldRule..., optional: Bool = false, default value: FieldValue? = nil) {
            fields.append(Field(name: name, type: .integer, isOptional: optional, defaultValue: value, rules: rules))
        }

        /// A floating-point number (a `Double`).
        public mutating func number(_ name: String, _ rules: FieldRule..., optional: Bool = false, default value: FieldValue? = nil) {
            fields.append(Field(name: name, type: .number, isOptional: optional, defaultValue: value, rules: rules))
        }

        /// A decimal number, kept as its digits (`"12.50"`): money and other exact amounts.
        public mutating func decimal(_ name: String, _ rules: FieldRule..., optional: Bool = false, default value: FieldValue? = nil) {
            fields.append(Field(name: name, type: .decimal, isOptional: optional, defaultValue: value, rules: rules))
        }

        /// True or false. With `setBy`, two events of their own set it (`TodoCompleted`,
        /// `TodoReopened`) and updates do not.
        public mutating func boolean(_ name: String, optional: Bool = false, default value: FieldValue? = nil, setBy: SetEvents? = nil) {
            fields.append(Field(name: name, type: .boolean, isOptional: optional, defaultValue: value, setBy: setBy))
        }

        /// A calendar day, `YYYY-MM-DD`, a real one (`2026-02-30` is refused).
        public mutating func day(_ name: String, optional: Bool = false, default value: FieldValue? = nil) {
            fields.append(Field(name: name, type: .day, isOptional: optional, defaultValue: value))
        }

        /// An instant, UTC, `YYYY-MM-DDTHH:MM:SS.sssZ`.
        public mutating func timestamp(_ name: String, optional: Bool = false) {
            fields.append(Field(name: name, type: .timestamp, isOptional: optional))
        }

        /// The id of a live entity of `entity`. With `onParentDeletion`, the referenced
        /// entity is this one's parent: its deletion deletes or hides this one.
        public mutating func reference(_ name: String, to entity: String, optional: Bool = false,
                                       onParentDeletion: ParentDeletion? = nil) {
            fields.append(Field(name: name, type: .reference(entity), isOptional: optional, onParentDeletion: onParentDeletion))
        }

        /// A set of ids of live entities of `entity`, merged per member: the later add or
        /// remove of one member wins. `setBy` names the events that add and remove one member
        /// (`TodoTagged`, `TodoUntagged`), `member` the key of their data holding its id.
        public mutating func references(_ name: String, to entity: String, setBy: SetEvents? = nil, member: String? = nil) {
            fields.append(Field(name: name, type: .references(entity), isOptional: false,
                                setBy: setBy, member: member ?? Self.singular(name) + "Id"))
        }

        /// Keeps an index of `field`'s values (declared above), so that queries by its value or
        /// a range of them read only the entities they return (`entities("Note", where: "day", …)`).
        /// A set cannot be: its members are indexed without saying, as references are.
        public mutating func index(_ field: String) {
            guard let at = fields.firstIndex(where: { $0.name == field }) else {
                problems.append((field, "an index of a field the entity does not declare (declare it first)"))
                return
            }
            fields[at].isIndexed = true
        }

        /// Says that field `new` (declared above) was called `old` in earlier versions of the
        /// model: events written under the old name, by those versions or by devices not
        /// upgraded yet, read as giving the new one.
        ///
        /// ```swift
        /// note.text("title", .notBlank)
        /// note.rename("heading", to: "title")   // version 1 called it heading
        /// ```
        public mutating func rename(_ old: String, to new: String) {
            guard let at = fields.firstIndex(where: { $0.name == new }) else {
                problems.append((new, "a rename of a field the entity does not declare (declare it first)"))
                return
            }
            fields[at].formerNames.append(old)
        }

        /// Says that field `name` (declared above) had type `old` in earlier versions of the
        /// model: its values in events written then, by those versions or by devices not
        /// upgraded yet, are converted into its type when read (an upcaster). Only conversions
        /// that keep every value's meaning are declared (``FieldType/converts(from:)``): an
        /// integer into a number or a decimal, a number into a decimal, a day into a
        /// timestamp, a boolean into an integer, a scalar into text.
        ///
        /// ```swift
        /// note.decimal("cost", optional: true)
        /// note.convert("cost", from: .number)   // version 1 kept cost as a number
        /// ```
        public mutating func convert(_ name: String, from old: FieldType) {
            guard let at = fields.firstIndex(where: { $0.name == name }) else {
                problems.append((name, "a conversion of a field the entity does not declare (declare it first)"))
                return
            }
            fields[at].formerTypes.append(old)
        }

        /// What ``index(_:)``, ``rename(_:to:)`` and ``convert(_:from:)`` found wrong, by field: the model refuses it.
        var problems: [(field: String, problem: String)] = []

        static func singular(_ name: String) -> String {
            name.hasSuffix("s") && name.count > 1 ? String(name.dropLast()) : name
        }
    }
}

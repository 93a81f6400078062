import Foundation

extension ChronicleModel {
    /// One typed field of an entity.
    public struct Field: Sendable, Hashable {
        /// Its name in events and JSON, e.g. `title`.
        public var name: String
        public var type: FieldType
        /// Whether it may be absent (JSON `null`).
        public var isOptional: Bool
        /// What an entity created without it holds (and what events written before the field
        /// existed are read with).
        public var defaultValue: FieldValue?
        /// Checks and normalizations, in order.
        public var rules: [FieldRule]
        /// Unique among the live entities of its kind, under this comparison.
        public var unique: Uniqueness?
        /// For a reference to a parent: what the parent's deletion does.
        public var onParentDeletion: ParentDeletion?
        /// For a boolean or a set: the events that set it (on/off, add/remove).
        public var setBy: SetEvents?
        /// For a set: the member of `setBy`'s events' data that holds the id.
        public var member: String?
        /// Whether the store keeps an index of its values, for queries by value or range
        /// (``EntityDeclaration/index(_:)``).
        public var isIndexed: Bool
        /// The names it had in earlier versions of the model, oldest first
        /// (``EntityDeclaration/rename(_:to:)``): events that give it under one are read as giving it.
        public var formerNames: [String]
        /// The types earlier versions of the model gave the field, oldest first: a value of
        /// one of them in an event is converted into this type when read (an upcaster,
        /// ``EntityDeclaration/convert(_:from:)``).
        public var formerTypes: [FieldType]

        public init(name: String, type: FieldType, isOptional: Bool = false, defaultValue: FieldValue? = nil,
                    rules: [FieldRule] = [], unique: Uniqueness? = nil, onParentDeletion: ParentDeletion? = nil,
                    setBy: SetEvents? = nil, member: String? = nil, isIndexed: Bool = false, formerNames: [String] = [],
                    formerTypes: [FieldType] = []) {
            self.name = name
            self.type = type
            self.isOptional = isOptional
            self.defaultValue = defaultValue
            self.rules = rules
            self.unique = unique
            self.onParentDeletion = onParentDeletion
            self.setBy = setBy
            self.member = member
            self.isIndexed = isIndexed
            self.formerNames = formerNames
            self.formerTypes = formerTypes
        }
    }

    /// What a field holds.
    public enum FieldType: Sendable, Hashable {
        case text, integer, number, decimal, boolean, day, timestamp
        /// The id of an entity of the named kind.
        case reference(String)
        /// A set of ids of entities of the named kind.
        case references(String)

        /// The name the model's record uses: `text`, `reference`, ….
        public var name: String {
            switch self {
            case .text: "text"
            case .integer: "integer"
            case .number: "number"
            case .decimal: "decimal"
            case .boolean: "boolean"
            case .day: "day"
            case .timestamp: "timestamp"
            case .reference: "reference"
            case .references: "references"
            }
        }

        /// The entity a reference or a set names.
        public var target: String? {
            switch self {
            case .reference(let entity), .references(let entity): entity
            default: nil
            }
        }
    }

    /// A value a field may hold, as in JSON.
    public enum FieldValue: Sendable, Hashable {
        case text(String)
        case integer(Int)
        case number(Double)
        case boolean(Bool)
        /// A set's members, sorted (a JSON array of lowercase UUIDs).
        case ids([UUID])
        /// No value (JSON `null`). Given to an update, it clears an optional field; given to a
        /// creation, it is as if the field were not given. A state never holds it.
        case null

        /// Whether a field's value may be cleared (``null``): it is optional, not set by events of
        /// its own, not a set.
        public static func isClearable(_ field: Field) -> Bool {
            field.isOptional && field.setBy == nil && field.type.name != "references"
        }

        /// Whether the value fits `type` (a day, timestamp or decimal is given as text).
        public func fits(_ type: FieldType) -> Bool {
            switch (self, type) {
            case (.text(let text), .day): FieldRule.isCalendarDay(text)
            case (.text(let text), .decimal): FieldRule.isDecimal(text)
            case (.text, .text), (.text, .timestamp), (.integer, .integer), (.number, .number),
                 (.integer, .number), (.boolean, .boolean): true
            default: false
            }
        }
    }

    /// How values of a unique field compare.
    public enum Uniqueness: String, Sendable, Hashable, Codable {
        /// Byte for byte.
        case exact
        /// Under full Unicode case folding: "Work", "work" and "WORK" collide, and so do
        /// "Straße" and "STRASSE".
        case caseFolded
    }

    /// What a parent's deletion does to the entities that reference it.
    public enum ParentDeletion: String, Sendable, Hashable, Codable {
        /// They are deleted in the same batch; one the deletion did not reach (written
        /// elsewhere meanwhile) is hidden; the parent's restoration brings them back.
        case deleteWithParent
        /// They stay, hidden while the parent is deleted, back with it.
        case hideWithParent
        /// The parent's deletion is refused while one is live.
        case refuseParentDeletion
    }

    /// The two events that set a boolean (on, off) or change a set (add, remove one member).
    public struct SetEvents: Sendable, Hashable, Codable {
        public var on: String
        public var off: String
        public init(on: String, off: String) {
            self.on = on
            self.off = off
        }
    }
}

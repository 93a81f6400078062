import JSONText
import Foundation

extension ChronicleModel {
    /// One stored event as the model reads it: which entity it is about and what it does.
    ///
    /// ```swift
    /// let reader = ChronicleModel.EventReader(TodoAppModel.model)
    /// let event = try reader.read(type: "TodoCompleted", stream: "todo-0190…", data: Data("{}".utf8))
    /// event.change   // .set(field: "isCompleted", to: true)
    /// ```
    public struct Event: Sendable, Hashable {
        /// What an event does to its entity.
        public enum Change: Sendable, Hashable {
            /// Makes the entity, with the fields its data gives (the others take their defaults).
            case created(FieldValues)
            /// Writes the fields its data gives.
            case updated(FieldValues)
            /// Deletes the entity; it keeps its fields for a restoration.
            case deleted
            /// Brings a deleted entity back as it was.
            case restored
            /// Sets a boolean that events of its own set (`TodoCompleted`: `isCompleted` true).
            case set(field: String, to: Bool)
            /// Adds one member to a set (`TodoTagged`).
            case added(field: String, member: UUID)
            /// Removes one member from a set (`TodoUntagged`).
            case removed(field: String, member: UUID)
        }

        /// The event's type, e.g. `TodoCompleted`.
        public var type: String
        /// The entity's name, e.g. `Todo`.
        public var entity: String
        /// The entity's id, from the stream's name.
        public var id: UUID
        /// What the event does.
        public var change: Change

        /// An event from its parts.
        public init(type: String, entity: String, id: UUID, change: Change) {
            self.type = type
            self.entity = entity
            self.id = id
            self.change = change
        }

        /// What the event writes, each merged on its own (the later write in the merge's
        /// order wins). Creations, deletions and restorations write none: an id is created
        /// once, and a deletion wins over every write until a restoration.
        public var writes: [FieldWrite] {
            switch change {
            case .created, .deleted, .restored: []
            case .updated(let values): values.keys.sorted().map { FieldWrite(field: $0) }
            case .set(let field, _): [FieldWrite(field: field)]
            case .added(let field, let member), .removed(let field, let member): [FieldWrite(field: field, member: member)]
            }
        }
    }

    /// One thing a write sets on an entity: a field, or one member of a set.
    public struct FieldWrite: Sendable, Hashable {
        /// The field's name.
        public var field: String
        /// For a set: the member added or removed.
        public var member: UUID?

        /// A write of `field` (of one `member` of a set).
        public init(field: String, member: UUID? = nil) {
            self.field = field
            self.member = member
        }
    }

    /// Why a stored event cannot be read under the model: one line naming its type and member.
    public struct EventProblem: Error, Sendable, Hashable, CustomStringConvertible {
        /// The line, for people.
        public let description: String

        init(_ description: String) {
            self.description = description
        }

        /// Text that may be anything (a name read from a stored event, text a person typed),
        /// for a problem's line: in single quotes, control characters as `?` (so on one line),
        /// cut at 80 characters.
        ///
        /// ```swift
        /// ChronicleModel.EventProblem.quotedName("Evil\nType")   // 'Evil?Type'
        /// ```
        public static func quotedName(_ text: String) -> String {
            let oneLine = String(String.UnicodeScalarView(cut(text).unicodeScalars.map { scalar in
                scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}" ? "?" : scalar
            }))
            return "'" + oneLine + "'"
        }

        /// A value read from a stored event's data, for a problem's line: quoted as JSON (so on
        /// one line), cut at 80 characters.
        static func quotedValue(_ text: String) -> String {
            JSONQuoting.quoted(cut(text))
        }

        private static func cut(_ text: String) -> String {
            let limit = 80
            return text.count > limit ? String(text.prefix(limit)) + "…" : text
        }
    }
}

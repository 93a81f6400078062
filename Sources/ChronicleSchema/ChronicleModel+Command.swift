import Foundation

extension ChronicleModel {
    /// A change an app asks of one entity, decided by the model's rules (``Decider``).
    ///
    /// ```swift
    /// ChronicleModel.Command(entity: "Note", id: UUID(), action: .create(["day": .text("2026-03-01")]))
    /// ChronicleModel.Command(entity: "Note", id: id, action: .update(["pinned": .boolean(true)]))
    /// ChronicleModel.Command(entity: "Note", id: id, action: .add(field: "labels", member: label))
    /// ```
    public struct Command: Sendable, Hashable {
        /// What the command does.
        public enum Action: Sendable, Hashable {
            /// Creates the entity with these fields (the others take their defaults).
            case create([String: FieldValue])
            /// Writes these fields; a boolean set by events of its own is set by them, a set
            /// given whole is changed member by member.
            case update([String: FieldValue])
            /// Deletes the entity, and the children its deletion deletes.
            case delete
            /// Brings a deleted entity back as it was.
            case restore
            /// Adds one member to a set.
            case add(field: String, member: UUID)
            /// Removes one member from a set.
            case remove(field: String, member: UUID)
        }

        /// The entity's name, e.g. `Note`.
        public var entity: String
        public var id: UUID
        public var action: Action

        /// A command on entity `id` of `entity`.
        public init(entity: String, id: UUID, action: Action) {
            self.entity = entity
            self.id = id
            self.action = action
        }
    }

    /// An event a decision appends.
    public struct DecidedEvent: Sendable, Hashable {
        public var stream: String
        public var type: String
        /// The data: a JSON object, keys sorted, no white space.
        public var data: Data
        /// The shape of `data`: the entity's for creations and updates, 1 for events without fields.
        public var schemaVersion: Int
    }

    /// What a decision read beyond the streams it writes, and the keys it holds, for the
    /// log to check and write with the batch (its `AppendKey`s), so that the model's rules
    /// hold against every process appending to the store.
    public enum Condition: Sendable, Hashable {
        /// The live entity holding a unique value claims its key (`tag-name:work`).
        case claim(_ key: String, by: String)
        /// And releases it when the value changes or the entity is deleted.
        case release(_ key: String, by: String)
        /// A child's creation (or move) touches its parent's key (`user-<id>/todos`).
        case touch(_ key: String)
        /// A parent's deletion read its children at position `since`: none may have come since.
        case unchanged(_ key: String, since: UInt64)
    }

    /// What a command appends: events in order, the version each stream was read at, and the
    /// conditions the batch holds.
    public struct Decision: Sendable, Hashable {
        public var events: [DecidedEvent] = []
        /// Per stream written, the version the decision read it at (0: no such stream yet).
        public var expectedVersions: [String: UInt64] = [:]
        public var conditions: [Condition] = []
    }

    /// What a decision reads: each entity's state and the store's keys, as of one position.
    public protocol StateReading {
        /// The position read at.
        var position: UInt64 { get }
        /// The entity as folded, deleted or not; nil when none of its events created it.
        func state(of entity: String, id: UUID) throws -> EntityState?
        /// Whether the entity is shown (live, and its parents shown).
        func isShown(_ entity: String, id: UUID) throws -> Bool
        /// The live entity of `entity` whose unique `field` has the key `key` (``Uniqueness/key(_:)``).
        func holder(of entity: String, field: String, key: String) throws -> UUID?
        /// Every live entity of `entity` whose unique `field` has the key `key` (after a merge
        /// there may be several: one holds the key, the others are shown with a place).
        func holders(of entity: String, field: String, key: String) throws -> [UUID]
        /// The entities of `entity`, deleted or not, whose reference `field` names `parent`.
        func children(of entity: String, field: String, parent: UUID) throws -> [EntityState]
        /// The number of events of `stream` read (0 when none).
        func version(of stream: String) throws -> UInt64
    }
}

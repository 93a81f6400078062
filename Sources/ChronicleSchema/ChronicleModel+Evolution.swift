extension ChronicleModel {
    /// What a new version of a model changes that the store's data must be checked against
    /// (``evolution(from:)``): entities it no longer declares, and fields it made unique.
    public struct Evolution: Sendable, Hashable {
        /// Entities of the recorded model this one no longer declares: the store must hold none
        /// of their events.
        public var removedEntities: [Entity] = []
        /// Fields this model makes unique: the store's live entities must not share a value.
        public var newlyUnique: [FieldPath] = []
    }

    /// A field of an entity, by their names.
    public struct FieldPath: Sendable, Hashable {
        public var entity: String
        public var field: String
    }

    /// Checks that this model reads every event a store written under `recorded` (an earlier
    /// version of it) may hold, and says what the store's data must be checked against.
    ///
    /// A field renamed (``EntityDeclaration/rename(_:to:)``) is checked as the field it was.
    /// Refused: a field whose type changed with no conversion from the old one
    /// (``EntityDeclaration/convert(_:from:)``: its old events would not read), an optional field
    /// made required without a default, a new required field without a default (events written
    /// before it lack it), and an event type an entity no longer declares.
    /// - throws: ``ChronicleModelError`` naming the entity and field.
    public func evolution(from recorded: ChronicleModel) throws(ChronicleModelError) -> Evolution {
        var evolution = Evolution()
        for old in recorded.entities {
            guard let new = entity(named: old.name) else {
                evolution.removedEntities.append(old)
                continue
            }
            func refusal(_ text: String, field: String? = nil) -> ChronicleModelError {
                ChronicleModelError(name, entity: old.name, field: field, text)
            }
            guard new.stream == old.stream else {
                throw refusal("its streams were '\(old.stream)-<id>' in version \(recorded.version): they cannot move")
            }
            for type in old.eventTypes where !new.eventTypes.contains(type) {
                throw refusal("its event type '\(type)' of version \(recorded.version) is no longer declared: the store's events of it would not read")
            }
            guard new.eventSchemaVersion >= old.eventSchemaVersion else {
                throw refusal("its event schema version went down from \(old.eventSchemaVersion) to \(new.eventSchemaVersion)")
            }
            for field in new.fields {
                // A renamed field is the field it was.
                let earlier = old.field(named: field.name) ?? field.formerNames.reversed().lazy.compactMap { old.field(named: $0) }.first
                guard let before = earlier else {
                    if EventReader.isRequired(field) {
                        throw refusal("a new field must be optional or have a default: events written before it lack it",
                                      field: field.name)
                    }
                    continue
                }
                // Every type its events may hold (the type it had, and those it converted from) must
                // be its type now or one it converts from.
                for old in [before.type] + before.formerTypes where old != field.type && !field.formerTypes.contains(old) {
                    let hint = field.type.converts(from: old) ? " (declare convert(\"\(field.name)\", from: .\(old.name)))" : ""
                    throw refusal("its type changed from \(Self.describe(old)) in version \(recorded.version) to "
                                  + "\(Self.describe(field.type)): events written before would not read\(hint)", field: field.name)
                }
                if EventReader.isRequired(field), !EventReader.isRequired(before) {
                    throw refusal("it was optional in version \(recorded.version): required now, it needs a default", field: field.name)
                }
                if field.unique != nil, before.unique != field.unique {
                    evolution.newlyUnique.append(FieldPath(entity: old.name, field: field.name))
                }
            }
        }
        return evolution
    }

    private static func describe(_ type: FieldType) -> String {
        type.target.map { "\(type.name) of \($0)" } ?? type.name
    }
}

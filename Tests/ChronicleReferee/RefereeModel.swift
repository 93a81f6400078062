import Foundation

/// A declared model as the referee reads it: from the record a store keeps (docs/FORMAT.md,
/// "model-records"), with `JSONSerialization`, knowing nothing of the product's types.
///
/// ```swift
/// let model = try RefereeModel(record: recordBytes)
/// let state = RefereeModelState.fold(serverOrder, model: model)
/// ```
public struct RefereeModel: Sendable {
    public struct Field: Sendable {
        public var name: String
        /// `text`, `integer`, `number`, `decimal`, `boolean`, `day`, `timestamp`, `reference`, `references`.
        public var type: String
        public var target: String?
        public var optional: Bool
        public var defaultValue: RefereeValue?
        public var emptyIsAbsent: Bool
        public var composed: Bool
        /// `exact` or `caseFolded`.
        public var unique: String?
        /// Whether the parent it names hides the entity while deleted.
        public var hides: Bool
        public var setOn: String?
        public var setOff: String?
        public var member: String?
        public var formerNames: [String]

        var required: Bool { !optional && defaultValue == nil && setOn == nil && type != "references" }
        var clearable: Bool { optional && setOn == nil && type != "references" }
    }

    public struct Entity: Sendable {
        public var name: String
        public var stream: String
        public var created: String, updated: String, deleted: String, restored: String
        public var schemaVersion: Int
        public var fields: [Field]
    }

    public struct Measure: Sendable {
        public var name: String
        /// `count` or `sum`.
        public var kind: String
        public var field: String?
    }

    public struct Aggregate: Sendable {
        public var name: String, entity: String, groupedBy: String, key: String
        public var measures: [Measure]
    }

    public var entities: [Entity]
    public var aggregates: [Aggregate]

    public func entity(_ name: String) -> Entity? { entities.first { $0.name == name } }

    /// Reads a model's record.
    /// - throws: `RefereeParseError` when a member the referee needs is missing.
    public init(record: Data) throws {
        guard let object = try? JSONSerialization.jsonObject(with: record) as? [String: Any],
              let entities = object["entities"] as? [[String: Any]] else { throw RefereeParseError.notJSON }
        func string(_ object: [String: Any], _ key: String) throws -> String {
            guard let value = object[key] as? String else { throw RefereeParseError.missing(key) }
            return value
        }
        self.entities = try entities.map { entity in
            guard let events = entity["events"] as? [String: Any], let fields = entity["fields"] as? [[String: Any]] else {
                throw RefereeParseError.missing("events")
            }
            return Entity(
                name: try string(entity, "name"), stream: try string(entity, "stream"),
                created: try string(events, "created"), updated: try string(events, "updated"),
                deleted: try string(events, "deleted"), restored: try string(events, "restored"),
                schemaVersion: (entity["eventSchemaVersion"] as? Int) ?? 1,
                fields: try fields.map { field in
                    let rules = ((field["rules"] as? [[String: Any]]) ?? []).compactMap { $0["rule"] as? String }
                    let setBy = field["setBy"] as? [String: Any]
                    return Field(
                        name: try string(field, "name"), type: try string(field, "type"), target: field["entity"] as? String,
                        optional: (field["optional"] as? Bool) ?? false,
                        defaultValue: field["default"].map(RefereeValue.init),
                        emptyIsAbsent: rules.contains("emptyIsAbsent"), composed: rules.contains("canonicalComposition"),
                        unique: field["unique"] as? String, hides: field["onParentDeletion"] != nil,
                        setOn: setBy?["on"] as? String, setOff: setBy?["off"] as? String,
                        member: field["member"] as? String, formerNames: (field["formerly"] as? [String]) ?? [])
                })
        }
        aggregates = try ((object["aggregates"] as? [[String: Any]]) ?? []).map { aggregate in
            Aggregate(name: try string(aggregate, "name"), entity: try string(aggregate, "entity"),
                      groupedBy: try string(aggregate, "groupedBy"), key: try string(aggregate, "key"),
                      measures: try ((aggregate["measures"] as? [[String: Any]]) ?? []).map { measure in
                          Measure(name: try string(measure, "name"), kind: try string(measure, "kind"), field: measure["field"] as? String)
                      })
        }
    }
}

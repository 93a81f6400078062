import Foundation
import UUIDText

// The model as a store records it: JSON with sorted keys, the same bytes for the same model
// (docs/FORMAT.md, "The model record").

extension ChronicleModel: Codable {
    private enum Keys: String, CodingKey { case name, version, entities, aggregates }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(name: try container.decode(String.self, forKey: .name), version: try container.decode(Int.self, forKey: .version),
                  entities: try container.decode([Entity].self, forKey: .entities),
                  aggregates: try container.decodeIfPresent([Aggregate].self, forKey: .aggregates) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(name, forKey: .name)
        try container.encode(version, forKey: .version)
        try container.encode(entities, forKey: .entities)
        try container.encode(aggregates, forKey: .aggregates)
    }

    /// The model's record: JSON with sorted keys, the same bytes for equal models.
    public func record() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Every member is a string, number, boolean, array or object: encoding cannot fail.
        return (try? encoder.encode(self)) ?? Data()
    }

    /// Reads a model's record and checks the model.
    /// - throws: ``ChronicleModelError`` when the bytes are not a model's record, or the model is wrong.
    public init(record: Data) throws(ChronicleModelError) {
        do {
            self = try JSONDecoder().decode(ChronicleModel.self, from: record)
        } catch {
            throw ChronicleModelError(recordProblem: Self.describe(error))
        }
        try validate()
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            "member '\(key.stringValue)' missing at \(path(context))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "a member of the wrong type at \(path(context))"
        case DecodingError.dataCorrupted(let context):
            context.codingPath.isEmpty ? "not JSON" : "an unknown value at \(path(context))"
        default:
            "not JSON"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return path.isEmpty ? "the top" : String(path.drop { $0 == "." })
    }
}

extension ChronicleModel.Entity: Codable {
    private enum Keys: String, CodingKey { case name, stream, events, eventSchemaVersion, fields }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(name: try container.decode(String.self, forKey: .name), stream: try container.decode(String.self, forKey: .stream),
                  events: try container.decode(ChronicleModel.EventNames.self, forKey: .events),
                  eventSchemaVersion: try container.decode(Int.self, forKey: .eventSchemaVersion),
                  fields: try container.decode([ChronicleModel.Field].self, forKey: .fields))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(name, forKey: .name)
        try container.encode(stream, forKey: .stream)
        try container.encode(events, forKey: .events)
        try container.encode(eventSchemaVersion, forKey: .eventSchemaVersion)
        try container.encode(fields, forKey: .fields)
    }
}

extension ChronicleModel.Field: Codable {
    private enum Keys: String, CodingKey {
        case name, type, entity, optional, `default`, rules, unique, onParentDeletion, setBy, member, indexed, formerly, convertedFrom
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let typeName = try container.decode(String.self, forKey: .type)
        let type: ChronicleModel.FieldType
        switch typeName {
        case "text": type = .text
        case "integer": type = .integer
        case "number": type = .number
        case "decimal": type = .decimal
        case "boolean": type = .boolean
        case "day": type = .day
        case "timestamp": type = .timestamp
        case "reference": type = .reference(try container.decode(String.self, forKey: .entity))
        case "references": type = .references(try container.decode(String.self, forKey: .entity))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown type \(typeName)")
        }
        self.init(name: try container.decode(String.self, forKey: .name), type: type,
                  isOptional: try container.decodeIfPresent(Bool.self, forKey: .optional) ?? false,
                  defaultValue: try container.decodeIfPresent(ChronicleModel.FieldValue.self, forKey: .default),
                  rules: try container.decodeIfPresent([ChronicleModel.FieldRule].self, forKey: .rules) ?? [],
                  unique: try container.decodeIfPresent(ChronicleModel.Uniqueness.self, forKey: .unique),
                  onParentDeletion: try container.decodeIfPresent(ChronicleModel.ParentDeletion.self, forKey: .onParentDeletion),
                  setBy: try container.decodeIfPresent(ChronicleModel.SetEvents.self, forKey: .setBy),
                  member: try container.decodeIfPresent(String.self, forKey: .member),
                  isIndexed: try container.decodeIfPresent(Bool.self, forKey: .indexed) ?? false,
                  formerNames: try container.decodeIfPresent([String].self, forKey: .formerly) ?? [],
                  formerTypes: try (container.decodeIfPresent([String].self, forKey: .convertedFrom) ?? []).map { name in
                      guard let type = ChronicleModel.FieldType.scalar(named: name) else {
                          throw DecodingError.dataCorruptedError(forKey: .convertedFrom, in: container, debugDescription: "unknown type \(name)")
                      }
                      return type
                  })
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(name, forKey: .name)
        try container.encode(type.name, forKey: .type)
        try container.encodeIfPresent(type.target, forKey: .entity)
        try container.encode(isOptional, forKey: .optional)
        try container.encodeIfPresent(defaultValue, forKey: .default)
        if !rules.isEmpty { try container.encode(rules, forKey: .rules) }
        try container.encodeIfPresent(unique, forKey: .unique)
        try container.encodeIfPresent(onParentDeletion, forKey: .onParentDeletion)
        try container.encodeIfPresent(setBy, forKey: .setBy)
        try container.encodeIfPresent(member, forKey: .member)
        if isIndexed { try container.encode(true, forKey: .indexed) }   // absent otherwise: older records stay as they were
        if !formerNames.isEmpty { try container.encode(formerNames, forKey: .formerly) }
        if !formerTypes.isEmpty { try container.encode(formerTypes.map(\.name), forKey: .convertedFrom) }
    }
}

extension ChronicleModel.FieldValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let ids = try? container.decode([String].self) {
            self = .ids(ChronicleModel.sortedIDs(Set(ids.compactMap { UUID(hyphenated: $0) })))
        } else if let value = try? container.decode(Bool.self) {
            self = .boolean(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .boolean(let value): try container.encode(value)
        case .ids(let ids): try container.encode(ids.map { $0.uuidString.lowercased() })
        case .null: try container.encodeNil()
        }
    }
}

extension ChronicleModel.FieldRule: Codable {
    private enum Keys: String, CodingKey { case rule, value, min, max }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let name = try container.decode(String.self, forKey: .rule)
        switch name {
        case "notBlank": self = .notBlank
        case "minLength": self = .minLength(try container.decode(Int.self, forKey: .value))
        case "maxLength": self = .maxLength(try container.decode(Int.self, forKey: .value))
        case "range":
            let (min, max) = (try container.decode(Int.self, forKey: .min), try container.decode(Int.self, forKey: .max))
            guard min <= max else { throw DecodingError.dataCorruptedError(forKey: .max, in: container, debugDescription: "max below min") }
            self = .range(min...max)
        case "numberRange":
            let (min, max) = (try container.decode(Double.self, forKey: .min), try container.decode(Double.self, forKey: .max))
            guard min <= max else { throw DecodingError.dataCorruptedError(forKey: .max, in: container, debugDescription: "max below min") }
            self = .numberRange(min...max)
        case "pattern": self = .pattern(try container.decode(String.self, forKey: .value))
        case "canonicalComposition": self = .canonicalComposition
        case "lowercased": self = .lowercased
        case "emptyIsAbsent": self = .emptyIsAbsent
        case "trimmed": self = .trimmed
        default:
            throw DecodingError.dataCorruptedError(forKey: .rule, in: container, debugDescription: "unknown rule \(name)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(name, forKey: .rule)
        switch self {
        case .minLength(let count), .maxLength(let count): try container.encode(count, forKey: .value)
        case .range(let range):
            try container.encode(range.lowerBound, forKey: .min)
            try container.encode(range.upperBound, forKey: .max)
        case .numberRange(let range):
            try container.encode(range.lowerBound, forKey: .min)
            try container.encode(range.upperBound, forKey: .max)
        case .pattern(let pattern): try container.encode(pattern, forKey: .value)
        case .notBlank, .canonicalComposition, .lowercased, .emptyIsAbsent, .trimmed: break
        }
    }
}

extension ChronicleModel.Aggregate: Codable {
    private enum Keys: String, CodingKey { case name, entity, groupedBy, key, measures }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(name: try container.decode(String.self, forKey: .name), entity: try container.decode(String.self, forKey: .entity),
                  groupedBy: try container.decode(String.self, forKey: .groupedBy), key: try container.decode(String.self, forKey: .key),
                  measures: try container.decode([ChronicleModel.Measure].self, forKey: .measures))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(name, forKey: .name)
        try container.encode(entity, forKey: .entity)
        try container.encode(groupedBy, forKey: .groupedBy)
        try container.encode(key, forKey: .key)
        try container.encode(measures, forKey: .measures)
    }
}

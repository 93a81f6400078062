import Foundation

/// A value of an event's `data` that the referee can read; anything else is `.other`.
public enum RefereeValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    /// A number with a fraction or an exponent, or too large for an integer.
    case number(Double)
    case bool(Bool)
    case array([RefereeValue])
    case null
    case other
}

/// Why a JSON text is not a wire event (docs/PROTOCOL.md, "The event").
public enum RefereeParseError: Error, Equatable, CustomStringConvertible {
    case notJSON
    case missing(String)

    public var description: String {
        switch self {
        case .notJSON: "not a JSON object or array of objects"
        case .missing(let member): "member \"\(member)\" missing or of the wrong type"
        }
    }
}

/// One event as the server serves it and `chronicle log --json` prints it.
///
/// ```swift
/// let events = try RefereeEvent.parseArray(json: Data(pullPageBody.utf8))
/// let state = RefereeState.fold(events)
/// ```
public struct RefereeEvent: Sendable, Equatable {
    public var position: UInt64
    public var id: String
    public var stream: String
    public var version: Int
    public var type: String
    public var timestamp: String
    public var origin: String
    public var data: [String: RefereeValue]
    /// `nil` when the member is absent, which means shape 1.
    public var schemaVersion: Int?

    public init(
        position: UInt64, id: String, stream: String, version: Int, type: String,
        timestamp: String, origin: String, data: [String: RefereeValue], schemaVersion: Int? = nil
    ) {
        self.position = position
        self.id = id
        self.stream = stream
        self.version = version
        self.type = type
        self.timestamp = timestamp
        self.origin = origin
        self.data = data
        self.schemaVersion = schemaVersion
    }

    /// Reads one wire event object. Every member but `schemaVersion` is required.
    /// - throws: `RefereeParseError`.
    public static func parse(json: Data) throws -> RefereeEvent {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] else {
            throw RefereeParseError.notJSON
        }
        return try parse(object: object)
    }

    /// Reads an array of events (`chronicle log --json`), or a pull page `{"events":[…],…}`.
    /// - throws: `RefereeParseError`.
    public static func parseArray(json: Data) throws -> [RefereeEvent] {
        let value = try? JSONSerialization.jsonObject(with: json)
        let page = (value as? [String: Any])?["events"] ?? value
        guard let objects = page as? [[String: Any]] else { throw RefereeParseError.notJSON }
        return try objects.map(parse(object:))
    }

    static func parse(object: [String: Any]) throws -> RefereeEvent {
        func string(_ key: String) throws -> String {
            guard let value = object[key] as? String else { throw RefereeParseError.missing(key) }
            return value
        }
        func integer(_ key: String) throws -> Int {
            guard case .integer(let value) = RefereeValue(object[key] as Any) else {
                throw RefereeParseError.missing(key)
            }
            return value
        }
        guard let data = object["data"] as? [String: Any] else { throw RefereeParseError.missing("data") }
        let position = try integer("position")
        guard position >= 0 else { throw RefereeParseError.missing("position") }
        return RefereeEvent(
            position: UInt64(position), id: try string("id"), stream: try string("stream"),
            version: try integer("version"), type: try string("type"),
            timestamp: try string("timestamp"), origin: try string("origin"),
            data: data.mapValues(RefereeValue.init),
            schemaVersion: object["schemaVersion"] == nil ? nil : try integer("schemaVersion"))
    }
}

extension RefereeValue {
    /// Classifies a value from `JSONSerialization`.
    init(_ value: Any) {
        switch value {
        case let text as String: self = .string(text)
        case is NSNull: self = .null
        case let number as NSNumber:
            // JSONSerialization hands booleans over as numbers of type "c".
            if String(cString: number.objCType) == "c" {
                self = .bool(number.boolValue)
                return
            }
            let double = number.doubleValue
            self = double.rounded() == double && abs(double) < 9e15 ? .integer(number.intValue) : .number(double)
        case let array as [Any]: self = .array(array.map(RefereeValue.init))
        default: self = .other
        }
    }

    var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    var integer: Int? {
        if case .integer(let number) = self { number } else { nil }
    }
}

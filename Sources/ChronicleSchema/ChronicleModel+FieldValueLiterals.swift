import Foundation

extension ChronicleModel.FieldValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral {
    /// Text, a day, a timestamp or a decimal: `["title": "Plan", "day": "2026-03-01"]`.
    public init(stringLiteral value: String) { self = .text(value) }
    /// An integer: `["age": 36]`.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// A number: `["weight": 2.5]`.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A boolean: `["pinned": true]`.
    public init(booleanLiteral value: Bool) { self = .boolean(value) }

    /// A reference to entity `id`: `["folderId": .id(folder.id)]`.
    public static func id(_ id: UUID) -> Self { .text(id.uuidString.lowercased()) }

    /// A set of references: `["labels": .ids(red.id, blue.id)]`.
    public static func ids(_ ids: UUID...) -> Self { .ids(ChronicleModel.sortedIDs(ids)) }
}

extension ChronicleModel.EntityState {
    /// The text (or day, timestamp, decimal) `field` holds; nil when it holds none.
    public func text(_ field: String) -> String? { values[field]?.text }

    /// The integer `field` holds; nil when it holds none.
    public func integer(_ field: String) -> Int? { values[field]?.integer }

    /// The number `field` holds (an integer read as one too); nil when it holds none.
    public func number(_ field: String) -> Double? { values[field]?.number }

    /// The boolean `field` holds; nil when it holds none.
    public func boolean(_ field: String) -> Bool? { values[field]?.boolean }
}

extension ChronicleModel.FieldValue {
    // What the typed accessors of a state and of a record's fields read: one rule for both.

    /// The text (or day, timestamp, decimal) held.
    var text: String? { if case .text(let text) = self { text } else { nil } }
    /// The integer held.
    var integer: Int? { if case .integer(let number) = self { number } else { nil } }
    /// The number held, an integer read as one too.
    var number: Double? {
        switch self {
        case .number(let number): number
        case .integer(let number): Double(number)
        default: nil
        }
    }
    /// The boolean held.
    var boolean: Bool? { if case .boolean(let flag) = self { flag } else { nil } }
    /// A set's members.
    var members: [UUID]? { if case .ids(let ids) = self { ids } else { nil } }
}

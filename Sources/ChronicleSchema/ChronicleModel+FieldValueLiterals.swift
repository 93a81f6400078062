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
    public func text(_ field: String) -> String? {
        if case .text(let text)? = values[field] { text } else { nil }
    }

    /// The integer `field` holds; nil when it holds none.
    public func integer(_ field: String) -> Int? {
        if case .integer(let number)? = values[field] { number } else { nil }
    }

    /// The number `field` holds (an integer read as one too); nil when it holds none.
    public func number(_ field: String) -> Double? {
        switch values[field] {
        case .number(let number)?: number
        case .integer(let number)?: Double(number)
        default: nil
        }
    }

    /// The boolean `field` holds; nil when it holds none.
    public func boolean(_ field: String) -> Bool? {
        if case .boolean(let flag)? = values[field] { flag } else { nil }
    }
}

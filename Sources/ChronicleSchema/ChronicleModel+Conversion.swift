import Foundation

extension ChronicleModel.FieldType {
    /// Whether every value of type `old` converts into this type without loss of meaning
    /// (``ChronicleModel/EntityDeclaration/convert(_:from:)``): an integer into a number or a
    /// decimal, a number into a decimal, a day into a timestamp (midnight UTC), a boolean into
    /// an integer (0 or 1), and any scalar into text (its JSON spelling, unquoted).
    public func converts(from old: ChronicleModel.FieldType) -> Bool {
        switch (old, self) {
        case (.integer, .number), (.integer, .decimal), (.number, .decimal), (.day, .timestamp), (.boolean, .integer):
            true
        case (.integer, .text), (.number, .text), (.decimal, .text), (.boolean, .text), (.day, .text), (.timestamp, .text):
            true
        default:
            false
        }
    }
}

extension ChronicleModel.FieldType {
    /// The type a record names, for the types that are not references.
    static func scalar(named name: String) -> ChronicleModel.FieldType? {
        [.text, .integer, .number, .decimal, .boolean, .day, .timestamp].first { $0.name == name }
    }
}

extension ChronicleModel.FieldValue {
    /// This value, read as a field of type `old`, converted into type `new` (nil when the pair
    /// does not convert, or a number has no decimal spelling: beyond what a `Decimal` holds).
    public func converted(from old: ChronicleModel.FieldType, to new: ChronicleModel.FieldType) -> ChronicleModel.FieldValue? {
        guard new.converts(from: old) else { return nil }
        switch (self, new) {
        case (.integer(let number), .number): return .number(Double(number))
        case (.integer(let number), .decimal), (.integer(let number), .text): return .text(String(number))
        case (.number(let number), .decimal):
            let spelt = "\(number)"
            if ChronicleModel.FieldRule.isDecimal(spelt) { return .text(spelt) }
            // 1e-05 and the like: as digits.
            guard let exact = Decimal(string: spelt, locale: Locale(identifier: "en_US_POSIX")),
                  ChronicleModel.FieldRule.isDecimal(exact.description) else { return nil }
            return .text(exact.description)
        case (.number(let number), .text): return .text("\(number)")
        case (.text(let day), .timestamp): return .text(day + "T00:00:00.000Z")
        case (.boolean(let flag), .integer): return .integer(flag ? 1 : 0)
        case (.boolean(let flag), .text): return .text(flag ? "true" : "false")
        case (.text, .text): return self
        default: return nil
        }
    }
}

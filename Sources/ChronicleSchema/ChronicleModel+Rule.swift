extension ChronicleModel {
    /// A check or a normalization of a field's value, applied in the order declared.
    public enum FieldRule: Sendable, Hashable {
        /// Text stored without white space or newlines at either end (checked after by the
        /// rules that follow it).
        case trimmed
        /// Text with something besides white space.
        case notBlank
        /// Text of at least this many characters.
        case minLength(Int)
        /// Text of at most this many characters.
        case maxLength(Int)
        /// An integer within the bounds.
        case range(ClosedRange<Int>)
        /// A number within the bounds.
        case numberRange(ClosedRange<Double>)
        /// Text the regular expression matches whole, e.g. `#[0-9a-fA-F]{6}`.
        case pattern(String)
        /// Text stored in canonical composition (NFC).
        case canonicalComposition
        /// Text stored lowercased.
        case lowercased
        /// Empty text is no value: an optional field given `""` becomes absent.
        case emptyIsAbsent

        /// The rule's name in the model's record.
        public var name: String {
            switch self {
            case .trimmed: "trimmed"
            case .notBlank: "notBlank"
            case .minLength: "minLength"
            case .maxLength: "maxLength"
            case .range: "range"
            case .numberRange: "numberRange"
            case .pattern: "pattern"
            case .canonicalComposition: "canonicalComposition"
            case .lowercased: "lowercased"
            case .emptyIsAbsent: "emptyIsAbsent"
            }
        }

        /// Whether the rule applies to fields of `type`.
        public func applies(to type: FieldType) -> Bool {
            switch self {
            case .trimmed, .notBlank, .minLength, .maxLength, .pattern, .canonicalComposition, .lowercased, .emptyIsAbsent:
                type == .text
            case .range: type == .integer
            case .numberRange: type == .number
            }
        }

        /// `YYYY-MM-DD`, a day its month has.
        static func isCalendarDay(_ text: String) -> Bool {
            ChronicleModel.calendarDay(text) != nil
        }

        /// Digits with an optional sign and fraction: `-12.50`.
        static func isDecimal(_ text: String) -> Bool {
            var rest = Substring(text)
            if rest.first == "-" { rest = rest.dropFirst() }
            let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...2).contains(parts.count) else { return false }
            return parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
        }
    }
}

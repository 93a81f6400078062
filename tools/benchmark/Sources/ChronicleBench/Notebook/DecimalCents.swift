import Foundation

/// Decimal amounts as integer cents: how the GRDB baseline stores a note's cost, and how the
/// benchmark compares Chronicle's exact decimal sums with GRDB's integer ones.
enum DecimalCents {
    /// `"12.5"`, `"12.50"`, `"-3"` as cents; nil for text that is no such amount, or one with
    /// more than two decimals.
    static func cents(_ text: String) -> Int? {
        let negative = text.hasPrefix("-")
        let parts = text.dropFirst(negative ? 1 : 0).split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let units = Int(parts[0]) else { return nil }
        var fraction = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...2).contains(digits.count), let value = Int(digits) else { return nil }
            fraction = digits.count == 1 ? value * 10 : value
        }
        let cents = units * 100 + fraction
        return negative ? -cents : cents
    }
}

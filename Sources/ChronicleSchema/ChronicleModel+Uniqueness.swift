import Foundation

extension ChronicleModel.Uniqueness {
    /// The key values of a unique field are compared by: the text itself (``exact``), or
    /// (``caseFolded``) trimmed of white space and folded under Unicode's canonical caseless
    /// match, so "Work", "work" and "WORK" collide, and so do "Straße" and "STRASSE".
    ///
    /// Folding is the default, non-Turkic one: "İ" folds to "i" + U+0307 and "ı" stays itself.
    ///
    /// ```swift
    /// ChronicleModel.Uniqueness.caseFolded.key(" Straße ") == ChronicleModel.Uniqueness.caseFolded.key("STRASSE")   // true
    /// ```
    public func key(_ text: String) -> String {
        switch self {
        case .exact:
            return text
        case .caseFolded:
            // Unicode's canonical caseless match is NFD(fold(NFD(x))): decomposing
            // first lets folding see combining marks such as U+0345, and folding can
            // itself produce decomposed text (ΐ folds to ι + two marks), so the
            // result is composed again; NFC is as canonical as NFD and shorter.
            //
            // Foundation's `folding(options: .caseInsensitive, locale: nil)` does
            // full folding on Linux (checked with Swift 6.3.1: ß → ss, ẞ → ss,
            // ς → σ, ﬁ → fi, ᾼ → αι) and, with no locale, ignores the process
            // locale, so a Turkish environment does not change the keys. TagTests
            // pin these cases, so a platform that folds differently fails there
            // instead of letting duplicates in.
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
                .decomposedStringWithCanonicalMapping
                .folding(options: .caseInsensitive, locale: nil)
                .precomposedStringWithCanonicalMapping
        }
    }

    /// `text` in NFC, the form lists sort names by (canonically equivalent spellings, `é` and
    /// `e` + U+0301, together); ASCII is returned as it is, without the conversion's cost.
    package static func composed(_ text: String) -> String {
        text.utf8.allSatisfy { $0 < 0x80 } ? text : text.precomposedStringWithCanonicalMapping
    }

    /// The value shown for the entity at `place` (1, 2, …) among the live ones whose values
    /// collide, in the order of the writes that gave them: the first as it is, the next with
    /// ` (2)` appended, and so on, so that live values shown stay unique.
    public static func shown(_ text: String, place: Int) -> String {
        place <= 1 ? text : "\(text) (\(place))"
    }

    /// The value and place `text` would be shown for when it ends in a place of 2 or more
    /// (`"Work (2)"`: `"Work"`, 2); nil otherwise.
    public static func place(in text: String) -> (value: String, place: Int)? {
        guard text.hasSuffix(")"), let open = text.range(of: " (", options: .backwards) else { return nil }
        let digits = text[open.upperBound..<text.index(before: text.endIndex)]
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.first != "0",
              let place = Int(digits), place >= 2 else { return nil }
        return (String(text[..<open.lowerBound]), place)
    }
}

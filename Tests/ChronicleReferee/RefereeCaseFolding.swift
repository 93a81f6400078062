import Foundation

/// Tag-name comparison under full Unicode case folding, written apart from the product.
///
/// Swift exposes no case-folding table, so the fold is built from the full case mappings
/// the standard library does expose: `NFD`, then per scalar `lowercased()`, `uppercased()`,
/// `lowercased()`, then `NFC`. Lowering first makes "ẞ" meet "ß" (→ "SS" → "ss"); working
/// per scalar keeps Greek final sigma out of it ("ΣΑΣ" and "σας" both give "σασ").
/// The one known difference from CaseFolding.txt is dotless "ı" (U+0131), which has no
/// folding there but would become "i" here, so it is kept as is.
///
/// ```swift
/// RefereeCaseFolding.fold("Straße") == RefereeCaseFolding.fold("STRASSE")  // true
/// ```
public enum RefereeCaseFolding {
    /// The folded form of `text`, in NFC.
    public static func fold(_ text: String) -> String {
        var folded = ""
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            if scalar == "\u{0131}" {
                folded.unicodeScalars.append(scalar)
            } else {
                folded += String(scalar).lowercased().uppercased().lowercased()
            }
        }
        return folded.precomposedStringWithCanonicalMapping
    }

    /// Whether two names are the same tag name in the docs' sense.
    public static func equal(_ lhs: String, _ rhs: String) -> Bool {
        fold(lhs) == fold(rhs)
    }
}

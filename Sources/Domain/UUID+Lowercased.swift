import Foundation

public extension UUID {
    /// The canonical lowercase form used everywhere Chronicle writes a UUID
    /// (JSON, stream names), so the same id always produces the same bytes.
    ///
    /// Foundation's `uuidString` is uppercase; logs, hashes and stream names
    /// need one spelling:
    ///
    /// ```swift
    /// UUID(uuidString: "1F0E…")!.lowercasedString   // "1f0e…"
    /// ```
    var lowercasedString: String { uuidString.lowercased() }
}

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
    var lowercasedString: String {
        // Formatted by hand: this runs for every event decoded in a rebuild, and
        // Foundation's uppercase-then-lowercase round trip costs several allocations.
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                var o = 0
                for i in 0..<16 {
                    if i == 4 || i == 6 || i == 8 || i == 10 { out[o] = UInt8(ascii: "-"); o += 1 }
                    out[o] = hex[Int(bytes[i] >> 4)]
                    out[o + 1] = hex[Int(bytes[i] & 0x0F)]
                    o += 2
                }
                return 36
            }
        }
    }

    /// Parses the 36-character hyphenated form (either case) without Foundation's
    /// `sscanf` path; `nil` for anything else.
    init?(hyphenated text: some StringProtocol) {
        guard let uuid = Self.parse(text, lowercaseOnly: false) else { return nil }
        self.init(uuid: uuid)
    }

    /// Parses only the spelling Chronicle writes (``lowercasedString``): 36 characters,
    /// hyphenated, lowercase. One id has one spelling, so it is never two keys in a model.
    init?(canonical text: some StringProtocol) {
        guard let uuid = Self.parse(text, lowercaseOnly: true) else { return nil }
        self.init(uuid: uuid)
    }

    /// Parses the spelling Chronicle writes, as ``init(canonical:)`` does, from UTF-8 bytes
    /// (a stream name's, read in place from the log).
    init?(canonical bytes: UnsafeRawBufferPointer) {
        let text = UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        guard let uuid = Self.parseHyphenated(text, lowercaseOnly: true) else { return nil }
        self.init(uuid: uuid)
    }

    /// Parses the 36-character hyphenated form (either case), as ``init(hyphenated:)`` does,
    /// from UTF-8 bytes (a reference read in place from a stored entity).
    init?(hyphenated bytes: UnsafeRawBufferPointer) {
        let text = UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        guard let uuid = Self.parseHyphenated(text, lowercaseOnly: false) else { return nil }
        self.init(uuid: uuid)
    }

    private static func parse(_ text: some StringProtocol, lowercaseOnly: Bool) -> uuid_t? {
        // Native strings (every string the wire parser or a record gives) are read in place;
        // a pull or a rebuild parses several ids per event, so no array, no iterator.
        text.utf8.withContiguousStorageIfAvailable { parseHyphenated($0, lowercaseOnly: lowercaseOnly) }
            ?? Array(text.utf8).withUnsafeBufferPointer { parseHyphenated($0, lowercaseOnly: lowercaseOnly) }
    }

    /// The 16 bytes `text` spells, or `nil` unless it is 8-4-4-4-12 hex digits.
    private static func parseHyphenated(_ text: UnsafeBufferPointer<UInt8>, lowercaseOnly: Bool) -> uuid_t? {
        let dash = UInt8(ascii: "-")
        guard text.count == 36, text[8] == dash, text[13] == dash, text[18] == dash, text[23] == dash else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let digits = lowercaseOnly ? lowercaseDigits : anyCaseDigits
        let valid = withUnsafeMutableBytes(of: &uuid) { bytes in
            digits.withUnsafeBufferPointer { digits in
                // Every digit is looked up, and one test at the end says whether all were
                // digits: a rebuild parses two or three ids an event.
                var position = 0, invalid: UInt8 = 0
                for index in 0..<16 {
                    if position == 8 || position == 13 || position == 18 || position == 23 { position += 1 }
                    let high = digits[Int(text[position])], low = digits[Int(text[position + 1])]
                    invalid |= high | low
                    bytes[index] = high << 4 | low & 0x0F
                    position += 2
                }
                return invalid & 0xF0 == 0
            }
        }
        return valid ? uuid : nil
    }

    /// Each byte's value as a hex digit, 0xFF for a byte that is none: lowercase only, and
    /// either case.
    private static let lowercaseDigits = digitValues(upper: false)
    private static let anyCaseDigits = digitValues(upper: true)

    private static func digitValues(upper: Bool) -> [UInt8] {
        var values = [UInt8](repeating: 0xFF, count: 256)
        for (offset, digit) in "0123456789abcdef".utf8.enumerated() { values[Int(digit)] = UInt8(offset) }
        if upper { for (offset, digit) in "ABCDEF".utf8.enumerated() { values[Int(digit)] = UInt8(offset + 10) } }
        return values
    }
}

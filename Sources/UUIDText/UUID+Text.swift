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
        var bytes = [UInt8](repeating: 0, count: 16)
        var index = 0
        var count = 0
        var high: UInt8? = nil
        for char in text.utf8 {
            count += 1
            guard count <= 36 else { return nil }
            if count == 9 || count == 14 || count == 19 || count == 24 {
                guard char == UInt8(ascii: "-") else { return nil }
                continue
            }
            let nibble: UInt8
            switch char {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = char - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = char - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = char - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let h = high {
                bytes[index] = h << 4 | nibble
                index += 1
                high = nil
            } else {
                high = nibble
            }
        }
        guard count == 36 else { return nil }
        self.init(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                         bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

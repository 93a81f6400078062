import Foundation
import JSONText

/// Writes a flat JSON object byte by byte.
///
/// Event data is hashed into the log's chain, so its bytes must be exactly
/// reproducible: keys in the order written (callers write them sorted), no
/// whitespace, only the escapes JSON requires, everything else raw UTF-8.
struct JSONObjectWriter {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    private var lastKey: String?

    mutating func write(_ key: String, _ value: String) {
        writeKey(key)
        JSONQuoting.append(value, to: &bytes)
    }

    mutating func write(_ key: String, _ value: Int) {
        writeKey(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes the pair only when `value` is present; absent means "omitted".
    mutating func writeIfPresent(_ key: String, _ value: String?) {
        if let value { write(key, value) }
    }

    mutating func writeIfPresent(_ key: String, _ value: Int?) {
        if let value { write(key, value) }
    }

    consuming func finish() -> Data {
        bytes.append(UInt8(ascii: "}"))
        return Data(bytes)
    }

    private mutating func writeKey(_ key: String) {
        if let lastKey {
            assert(Array(lastKey.utf8).lexicographicallyPrecedes(key.utf8), "keys must be written sorted")
            bytes.append(UInt8(ascii: ","))
        }
        lastKey = key
        JSONQuoting.append(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }
}

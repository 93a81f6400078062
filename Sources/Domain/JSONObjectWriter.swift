import Foundation

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
        Self.appendString(value, to: &bytes)
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
        Self.appendString(key, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    private static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

import EventLog
import Foundation
import UUIDText

/// The JSON shape of an event (SPEC §4 and the wire protocol), written by hand so the
/// stored payload bytes are embedded as they are, with no decode and re-encode.
///
/// `{"position":1,"id":"…","stream":"…","version":1,"type":"…","timestamp":"2026-11-22T02:30:00.123Z","origin":"…","data":{…}}`,
/// and `"schemaVersion":n` last for an event whose data has a later shape than its type's first (n ≥ 2).
public enum EventJSON {
    /// One event as a JSON object; `includePosition: false` gives the wire form a client pushes.
    public static func encode(_ event: RecordedEvent, includePosition: Bool = true) -> String {
        var out = "{"
        if includePosition { out += "\"position\":\(event.position)," }
        out += "\"id\":\"\(event.id.lowercasedString)\",\"stream\":"
        out += quote(event.stream)
        out += ",\"version\":\(event.version),\"type\":"
        out += quote(event.type)
        out += ",\"timestamp\":\"\(Timestamp.format(milliseconds: event.timestampMilliseconds))\",\"origin\":"
        out += quote(event.origin)
        out += ",\"data\":"
        out += String(decoding: event.data, as: UTF8.self)
        if event.schemaVersion != 1 { out += ",\"schemaVersion\":\(event.schemaVersion)" }
        out += "}"
        return out
    }

    /// Events as one JSON array.
    public static func encodeArray(_ events: [RecordedEvent], includePosition: Bool = true) -> String {
        "[" + events.map { encode($0, includePosition: includePosition) }.joined(separator: ",") + "]"
    }

    /// `text` as a JSON string literal.
    ///
    /// Escapes byte by byte: in UTF-8 every byte of a multi-byte character is 0x80 or
    /// above, so only ASCII bytes can need escaping, and most text needs none at all.
    public static func quote(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            return "\"" + text + "\""
        }
        var out: [UInt8] = [UInt8(ascii: "\"")]
        out.reserveCapacity(utf8.count + 16)
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case ..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }
}

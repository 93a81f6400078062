import ChronicleEvents
import Foundation
import JSONText
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

    /// `text` as a JSON string literal (see `JSONQuoting`).
    public static func quote(_ text: String) -> String {
        JSONQuoting.quoted(text)
    }
}

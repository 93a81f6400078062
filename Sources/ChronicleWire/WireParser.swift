import ChronicleEvents
import Foundation
import JSONText
import UUIDText

/// Reads exactly the shapes of the protocol (``WirePush``, ``WirePage``, the event: see
/// `WireEvent.swift`) in one pass over borrowed bytes, on the shared strict ``JSONScanner``.
struct WireParser {
    private var scanner: JSONScanner

    init(_ bytes: UnsafeRawBufferPointer) { scanner = JSONScanner(bytes) }

    struct Event {
        var id: UUID
        var stream: String
        var version: UInt64
        var type: String
        var schemaVersion: UInt16
        var timestamp: Int64
        var origin: String
        var data: Data
        var position: UInt64

        var foreign: ForeignEvent { recorded.foreign() }
        var recorded: RecordedEvent {
            RecordedEvent(position: position, id: id, stream: stream, version: version, type: type, schemaVersion: schemaVersion,
                          timestampMilliseconds: timestamp, origin: origin, data: data)
        }
    }

    // MARK: Documents

    mutating func push() throws(WireEventError) -> WirePush {
        var device: String?
        var events: [ForeignEvent]?
        try object(label: "body") { (parser: inout WireParser, key: String) throws(WireEventError) in
            switch key {
            case "device":
                guard device == nil else { throw WireParser.duplicate(key, in: "body") }
                let value = try parser.string(label: "\"device\"")
                guard !value.isEmpty, value.utf8.count <= WireEvent.maxDeviceBytes else {
                    throw WireEventError("\"device\" must be a non-empty string of at most \(WireEvent.maxDeviceBytes) bytes")
                }
                try WireParser.refuseNUL(in: value, "\"device\"")
                device = value
            case "events":
                guard events == nil else { throw WireParser.duplicate(key, in: "body") }
                var list: [ForeignEvent] = []
                try parser.array(label: "\"events\"") { (parser: inout WireParser, index: Int) throws(WireEventError) in
                    list.append(try parser.event(label: "events[\(index)]", positioned: false).foreign)
                }
                events = list
            default:
                throw WireParser.unknown(key, in: "body", expected: "\"device\", \"events\"")
            }
        }
        guard let device else { throw WireEventError("body: missing \"device\"") }
        guard let events else { throw WireEventError("body: missing \"events\"") }
        return WirePush(device: device, events: events)
    }

    mutating func page() throws(WireEventError) -> WirePage {
        var events: [RecordedEvent]?
        var lastPosition: UInt64?
        try object(label: "body") { (parser: inout WireParser, key: String) throws(WireEventError) in
            switch key {
            case "events":
                guard events == nil else { throw WireParser.duplicate(key, in: "body") }
                var list: [RecordedEvent] = []
                try parser.array(label: "\"events\"") { (parser: inout WireParser, index: Int) throws(WireEventError) in
                    list.append(try parser.event(label: "events[\(index)]", positioned: true).recorded)
                }
                events = list
            case "lastPosition":
                guard lastPosition == nil else { throw WireParser.duplicate(key, in: "body") }
                lastPosition = try parser.unsigned(label: "\"lastPosition\"", allowZero: true)
            default:
                throw WireParser.unknown(key, in: "body", expected: "\"events\", \"lastPosition\"")
            }
        }
        guard let events else { throw WireEventError("body: missing \"events\"") }
        guard let lastPosition else { throw WireEventError("body: missing \"lastPosition\"") }
        return WirePage(events: events, lastPosition: lastPosition)
    }

    mutating func acknowledgement() throws(WireEventError) -> WireAcknowledgement {
        var counts: [String: UInt64] = [:]
        try object(label: "body") { (parser: inout WireParser, key: String) throws(WireEventError) in
            switch key {
            case "accepted", "duplicates", "lastPosition":
                guard counts[key] == nil else { throw WireParser.duplicate(key, in: "body") }
                counts[key] = try parser.unsigned(label: "\"\(key)\"", allowZero: true)
            default:
                throw WireParser.unknown(key, in: "body", expected: "\"accepted\", \"duplicates\", \"lastPosition\"")
            }
        }
        for name in ["accepted", "duplicates", "lastPosition"] where counts[name] == nil {
            throw WireEventError("body: missing \"\(name)\"")
        }
        let (accepted, duplicates, last) = (counts["accepted"]!, counts["duplicates"]!, counts["lastPosition"]!)
        guard accepted <= UInt64(Int.max), duplicates <= UInt64(Int.max) else { throw WireEventError("body: a count is out of range") }
        // Positions run from 1 without gaps: a server that stored n events has reached n at least.
        guard last >= accepted else {
            throw WireEventError("body: \"lastPosition\" \(last) is below the \(accepted) events accepted")
        }
        return WireAcknowledgement(accepted: Int(accepted), duplicates: Int(duplicates), lastPosition: last)
    }

    /// One event object; `label` prefixes every message (`events[3]`).
    mutating func event(label: String, positioned: Bool) throws(WireEventError) -> Event {
        do {
            return try eventMembers(label: label, positioned: positioned)
        } catch where error.message.hasPrefix("invalid JSON") {
            throw WireEventError("\(label): \(error.message)")   // say which event is malformed
        }
    }

    private mutating func eventMembers(label: String, positioned: Bool) throws(WireEventError) -> Event {
        var id: UUID?, stream: String?, version: UInt64?, type: String?, timestamp: Int64?, origin: String?
        var data: Data?, position: UInt64?, schemaVersion: UInt16?
        try object(label: label) { (parser: inout WireParser, key: String) throws(WireEventError) in
            func once<T>(_ value: T?) throws(WireEventError) {
                if value != nil { throw WireParser.duplicate(key, in: label) }
            }
            switch key {
            case "id":
                try once(id)
                let text = try parser.string(label: "\(label): \"id\"")
                guard let value = UUID(hyphenated: text) else { throw WireEventError("\(label): \"id\" must be a UUID") }
                id = value
            case "stream":
                try once(stream)
                let value = try parser.string(label: "\(label): \"stream\"")
                do throws(EventValidationError) { try EventValidation.check(stream: value) } catch { throw WireEventError("\(label): \(error.description)") }
                stream = value
            case "version":
                try once(version)
                version = try parser.unsigned(label: "\(label): \"version\"", allowZero: false)
            case "type":
                try once(type)
                let value = try parser.string(label: "\(label): \"type\"")
                guard !value.isEmpty, value.utf8.count <= EventValidation.maxTypeBytes else {
                    throw WireEventError("\(label): \"type\" must be a non-empty string of at most \(EventValidation.maxTypeBytes) bytes")
                }
                try WireParser.refuseNUL(in: value, "\(label): \"type\"")
                type = value
            case "timestamp":
                try once(timestamp)
                let text = try parser.string(label: "\(label): \"timestamp\"")
                guard let value = Timestamp.parse(text) else {
                    throw WireEventError("\(label): \"timestamp\" must be UTC ISO 8601 like 2026-11-22T02:30:00.123Z")
                }
                timestamp = value
            case "origin":
                try once(origin)
                let value = try parser.string(label: "\(label): \"origin\"")
                guard !value.isEmpty, value.utf8.count <= WireEvent.maxOriginBytes else {
                    throw WireEventError("\(label): \"origin\" must be a non-empty string of at most \(WireEvent.maxOriginBytes) bytes")
                }
                try WireParser.refuseNUL(in: value, "\(label): \"origin\"")
                origin = value
            case "data":
                try once(data)
                data = try parser.objectBytes(label: "\(label): \"data\"")
            case "schemaVersion":
                try once(schemaVersion)
                let value = try parser.unsigned(label: "\(label): \"schemaVersion\"", allowZero: false)
                guard value <= UInt64(UInt16.max) else {
                    throw WireEventError("\(label): \"schemaVersion\" must be at most \(UInt16.max)")
                }
                // The protocol writes it only above 1: an explicit 1 would be stored and served back without it.
                guard value > 1 else {
                    throw WireEventError("\(label): \"schemaVersion\" 1 is the default: leave the member out")
                }
                schemaVersion = UInt16(value)
            case "position" where positioned:
                try once(position)
                position = try parser.unsigned(label: "\(label): \"position\"", allowZero: false)
            case "position":
                throw WireEventError("\(label): a pushed event carries no \"position\" (the server assigns its own)")
            default:
                throw WireParser.unknown(key, in: label,
                                     expected: (positioned ? "\"position\", " : "") + "\"id\", \"stream\", \"version\", \"type\", \"timestamp\", \"origin\", \"data\", \"schemaVersion\"")
            }
        }
        func missing(_ name: String) -> WireEventError { WireEventError("\(label): missing \"\(name)\"") }
        if positioned, position == nil { throw missing("position") }
        guard let id else { throw missing("id") }
        guard let stream else { throw missing("stream") }
        guard let version else { throw missing("version") }
        guard let type else { throw missing("type") }
        guard let timestamp else { throw missing("timestamp") }
        guard let origin else { throw missing("origin") }
        guard let data else { throw missing("data") }
        return Event(id: id, stream: stream, version: version, type: type, schemaVersion: schemaVersion ?? 1,
                     timestamp: timestamp, origin: origin, data: data, position: position ?? 0)
    }

    // MARK: Structure

    /// Reads an object, calling `member` with the parser positioned on each member's value.
    mutating func object(label: @autoclosure () -> String,
                         _ member: (inout WireParser, String) throws(WireEventError) -> Void) throws(WireEventError) {
        guard scanner.nextValueKind() == .object else { throw mismatch("\(label()) must be a JSON object") }
        guard try syntax({ (scanner: inout JSONScanner) throws(JSONSyntaxError) in try scanner.enterObject() }) else { return }
        repeat {
            let key = try syntax { (scanner: inout JSONScanner) throws(JSONSyntaxError) in try scanner.memberName() }
            try member(&self, key)
        } while try syntax({ (scanner: inout JSONScanner) throws(JSONSyntaxError) in try scanner.nextMember() })
    }

    /// Reads an array, calling `element` with the parser positioned on each element.
    mutating func array(label: @autoclosure () -> String,
                        _ element: (inout WireParser, Int) throws(WireEventError) -> Void) throws(WireEventError) {
        guard scanner.nextValueKind() == .array else { throw mismatch("\(label()) must be a JSON array") }
        guard try syntax({ (scanner: inout JSONScanner) throws(JSONSyntaxError) in try scanner.enterArray() }) else { return }
        var count = 0
        repeat {
            try element(&self, count)
            count += 1
        } while try syntax({ (scanner: inout JSONScanner) throws(JSONSyntaxError) in try scanner.nextElement() })
    }

    /// Only whitespace may follow the document.
    mutating func end() throws(WireEventError) {
        try syntax { (scanner: inout JSONScanner) throws(JSONSyntaxError) in try scanner.end() }
    }

    // MARK: Scalars

    mutating func string(label: @autoclosure () -> String) throws(WireEventError) -> String {
        guard scanner.nextValueKind() == .string else { throw mismatch("\(label()) must be a string") }
        return try syntax { (scanner: inout JSONScanner) throws(JSONSyntaxError) in try scanner.string() }
    }

    /// A non-negative integer without fraction or exponent, at most 2^63 − 1.
    mutating func unsigned(label: @autoclosure () -> String, allowZero: Bool) throws(WireEventError) -> UInt64 {
        let requirement = allowZero ? "a non-negative integer" : "a positive integer"
        guard scanner.nextValueKind() == .number else { throw mismatch("\(label()) must be \(requirement)") }
        let literal = try syntax { (scanner: inout JSONScanner) throws(JSONSyntaxError) in try scanner.number() }
        var value: UInt64 = 0
        for byte in scanner.bytes[literal] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                throw WireEventError("\(label()) must be \(requirement)")   // a sign, a fraction or an exponent
            }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw WireEventError("\(label()) is larger than \(Int64.max)") }
            value = sum
        }
        guard allowZero || value > 0 else { throw WireEventError("\(label()) must be \(requirement)") }
        // JSON's integers are int64 for most readers (and PostgreSQL's bigint): no position or
        // version comes near the limit, and one past it would not survive a round trip.
        guard value <= UInt64(Int64.max) else { throw WireEventError("\(label()) is larger than \(Int64.max)") }
        return value
    }

    /// The exact bytes of an object value, checked to its end.
    mutating func objectBytes(label: @autoclosure () -> String) throws(WireEventError) -> Data {
        guard scanner.nextValueKind() == .object else { throw mismatch("\(label()) must be a JSON object") }
        let range = try syntax { (scanner: inout JSONScanner) throws(JSONSyntaxError) in try scanner.skipValue() }
        return Data(UnsafeRawBufferPointer(rebasing: scanner.bytes[range]))
    }

    // MARK: Failures

    /// Refuses a string member holding U+0000 (`"\u0000"` in JSON): PostgreSQL's `text` cannot
    /// store it, so one storage would keep what the other cannot, and the rule is one for every
    /// string the wire carries (`stream`'s is `EventValidation`'s). `data` is not such a
    /// member: it is kept as its bytes, where a NUL stays the escape `\u0000`.
    static func refuseNUL(in value: String, _ member: @autoclosure () -> String) throws(WireEventError) {
        // Searched in the string's contiguous bytes, not byte by byte through its UTF-8 view.
        var value = value
        guard value.withUTF8({ $0.contains(0) }) else { return }
        throw WireEventError("\(member()) must not contain NUL (U+0000)")
    }

    /// Runs one scanner step; its syntax error becomes the protocol's "invalid JSON" error.
    private mutating func syntax<T>(_ step: (inout JSONScanner) throws(JSONSyntaxError) -> T) throws(WireEventError) -> T {
        do throws(JSONSyntaxError) {
            return try step(&scanner)
        } catch {
            throw WireEventError("invalid JSON: \(error)")
        }
    }

    /// A well-formed value of the wrong shape; malformed input is still reported as such.
    private mutating func mismatch(_ what: String) -> WireEventError {
        guard scanner.nextValueKind() != nil else { return WireEventError("invalid JSON: \(scanner.unexpected())") }
        return WireEventError(what)
    }

    static func duplicate(_ key: String, in label: String) -> WireEventError {
        WireEventError("\(label): \"\(key)\" appears twice")
    }

    static func unknown(_ key: String, in label: String, expected: String) -> WireEventError {
        WireEventError("\(label): unknown member \(EventJSON.quote(String(key.prefix(64)))) (expected \(expected))")
    }
}

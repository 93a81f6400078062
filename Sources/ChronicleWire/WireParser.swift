import EventLog
import Foundation
import UUIDText

/// A single-pass JSON reader over borrowed bytes, for exactly the shapes of the protocol
/// (``WirePush``, ``WirePage``, the event: see `WireEvent.swift`).
struct WireParser {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

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
                do throws(EventLogError) { try EventValidation.check(stream: value) } catch { throw WireEventError("\(label): \(error.description)") }
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
        skipWhitespace()
        guard peek() == UInt8(ascii: "{") else { throw mismatch("\(label()) must be a JSON object") }
        index += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { index += 1; return }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw syntax("expected a member name") }
            let key = try rawString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return
            default: throw syntax("expected ',' or '}'")
            }
        }
    }

    /// Reads an array, calling `element` with the parser positioned on each element.
    mutating func array(label: @autoclosure () -> String,
                        _ element: (inout WireParser, Int) throws(WireEventError) -> Void) throws(WireEventError) {
        skipWhitespace()
        guard peek() == UInt8(ascii: "[") else { throw mismatch("\(label()) must be a JSON array") }
        index += 1
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { index += 1; return }
        var count = 0
        while true {
            try element(&self, count)
            count += 1
            skipWhitespace()
            switch peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return
            default: throw syntax("expected ',' or ']'")
            }
        }
    }

    /// Only whitespace may follow the document.
    mutating func end() throws(WireEventError) {
        skipWhitespace()
        guard index == bytes.count else { throw syntax("unexpected bytes after the JSON value") }
    }

    // MARK: Scalars

    mutating func string(label: @autoclosure () -> String) throws(WireEventError) -> String {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw mismatch("\(label()) must be a string") }
        return try rawString()
    }

    /// A non-negative integer without fraction or exponent that fits 64 bits.
    mutating func unsigned(label: @autoclosure () -> String, allowZero: Bool) throws(WireEventError) -> UInt64 {
        skipWhitespace()
        let requirement = allowZero ? "a non-negative integer" : "a positive integer"
        let start = index
        guard let first = peek(), isDigit(first) else { throw mismatch("\(label()) must be \(requirement)") }
        var value: UInt64 = 0
        while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { throw mismatch("\(label()) is larger than \(UInt64.max)") }
            value = sum
            index += 1
        }
        if index - start > 1, first == UInt8(ascii: "0") { throw syntax("a number must not start with 0") }
        if let next = peek(), next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            throw mismatch("\(label()) must be \(requirement)")
        }
        guard allowZero || value > 0 else { throw mismatch("\(label()) must be \(requirement)") }
        // JSON's integers are int64 for most readers (and PostgreSQL's bigint): no position or
        // version comes near the limit, and one past it would not survive a round trip.
        guard value <= UInt64(Int64.max) else { throw mismatch("\(label()) is larger than \(Int64.max)") }
        return value
    }

    /// The exact bytes of an object value, validated to the end.
    mutating func objectBytes(label: @autoclosure () -> String) throws(WireEventError) -> Data {
        skipWhitespace()
        guard peek() == UInt8(ascii: "{") else { throw mismatch("\(label()) must be a JSON object") }
        let start = index
        try skipValue(depth: 0)
        return Data(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
    }

    /// Validates and skips any JSON value.
    mutating func skipValue(depth: Int) throws(WireEventError) {
        skipWhitespace()
        guard let byte = peek() else { throw syntax("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < WireEvent.maxDepth else { throw syntax("nested deeper than \(WireEvent.maxDepth) levels") }
            try object(label: "value") { (parser: inout WireParser, _: String) throws(WireEventError) in
                try parser.skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "["):
            guard depth < WireEvent.maxDepth else { throw syntax("nested deeper than \(WireEvent.maxDepth) levels") }
            try array(label: "value") { (parser: inout WireParser, _: Int) throws(WireEventError) in
                try parser.skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try skipNumber()
        default:
            throw syntax("expected a value")
        }
    }

    private mutating func literal(_ word: StaticString) throws(WireEventError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw syntax("unexpected end of input") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw syntax("expected a value")
        }
        index += count
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func skipNumber() throws(WireEventError) {
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw syntax("expected a digit") }
        index += 1
        if first != UInt8(ascii: "0") { while let byte = peek(), isDigit(byte) { index += 1 } }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let byte = peek(), isDigit(byte) else { throw syntax("expected a digit after '.'") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), isDigit(byte) else { throw syntax("expected a digit in the exponent") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
    }

    /// Reads a string (the parser is on its opening quote) and returns its value.
    private mutating func rawString() throws(WireEventError) -> String {
        let start = index + 1
        let hasEscapes = try skipString()
        let content = UnsafeRawBufferPointer(rebasing: bytes[start..<(index - 1)])
        if !hasEscapes { return String(decoding: content, as: UTF8.self) }   // already validated as UTF-8
        return unescape(content)
    }

    /// Skips a string, validating escapes and UTF-8; returns whether it had escapes.
    @discardableResult
    private mutating func skipString() throws(WireEventError) -> Bool {
        index += 1   // the opening quote
        var hasEscapes = false
        while true {
            guard index < bytes.count else { throw syntax("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return hasEscapes
            case UInt8(ascii: "\\"):
                hasEscapes = true
                try skipEscape()
            case 0..<0x20:
                throw syntax("control character in a string (escape it)")
            case 0x20..<0x80:
                index += 1
            default:
                try skipUTF8Sequence(lead: byte)
            }
        }
    }

    private mutating func skipEscape() throws(WireEventError) {
        guard index + 1 < bytes.count else { throw syntax("unterminated string") }
        switch bytes[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            index += 2
            let unit = try hex4()
            if (0xD800..<0xDC00).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw syntax("unpaired UTF-16 surrogate escape")
                }
                index += 2
                guard (0xDC00..<0xE000).contains(try hex4()) else { throw syntax("unpaired UTF-16 surrogate escape") }
            } else if (0xDC00..<0xE000).contains(unit) {
                throw syntax("unpaired UTF-16 surrogate escape")
            }
        default:
            throw syntax("invalid escape in a string")
        }
    }

    private mutating func hex4() throws(WireEventError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw syntax("unterminated string") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw syntax("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Validates one multi-byte UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF).
    private mutating func skipUTF8Sequence(lead: UInt8) throws(WireEventError) {
        let length: Int
        var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default: throw syntax("invalid UTF-8")
        }
        guard bytes.count - index >= length else { throw syntax("invalid UTF-8") }
        let second = bytes[index + 1]
        guard second >= lower, second <= upper else { throw syntax("invalid UTF-8") }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
            throw syntax("invalid UTF-8")
        }
        index += length
    }

    /// Decodes the content of a validated string that has escapes.
    private func unescape(_ content: UnsafeRawBufferPointer) -> String {
        var out = [UInt8]()
        out.reserveCapacity(content.count)
        var i = 0
        func hex(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for byte in content[at..<(at + 4)] {
                let digit: UInt8 = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0")
                    : (byte | 0x20) - UInt8(ascii: "a") + 10
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while i < content.count {
            let byte = content[i]
            guard byte == UInt8(ascii: "\\") else { out.append(byte); i += 1; continue }
            let kind = content[i + 1]
            i += 2
            switch kind {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex(i)
                i += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex(i + 2) - 0xDC00)
                    i += 6
                }
                // Validated above: never a lone surrogate.
                out.append(contentsOf: String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
            default: out.append(kind)   // " \ /
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Bytes

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws(WireEventError) {
        guard peek() == byte else { throw syntax("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    private func syntax(_ what: String) -> WireEventError {
        if index >= bytes.count { return WireEventError("invalid JSON: unexpected end of input") }
        return WireEventError("invalid JSON at byte \(index): \(what)")
    }

    /// A well-formed value of the wrong shape; malformed input is still reported as such.
    private func mismatch(_ what: String) -> WireEventError {
        index >= bytes.count ? WireEventError("invalid JSON: unexpected end of input") : WireEventError(what)
    }

    static func duplicate(_ key: String, in label: String) -> WireEventError {
        WireEventError("\(label): \"\(key)\" appears twice")
    }

    static func unknown(_ key: String, in label: String, expected: String) -> WireEventError {
        WireEventError("\(label): unknown member \(EventJSON.quote(String(key.prefix(64)))) (expected \(expected))")
    }
}

import Foundation

/// Reads the members of a JSON object, strictly by RFC 8259.
///
/// Event data is hashed and shared between platforms, so every reader must
/// agree on what it means. Foundation's decoders differ between Darwin and
/// Linux and are lenient (trailing commas, a byte-order mark, duplicate keys
/// resolved first-wins by one API and last-wins by another), so Domain reads
/// event data itself: valid UTF-8, standard grammar, no duplicate keys, bounded
/// nesting, and a message with a byte offset when something is wrong.
struct JSONObjectReader {
    /// A member's value. Nested arrays and objects are validated but not kept:
    /// event data is flat.
    enum Value: Equatable, Sendable {
        case null
        case bool(Bool)
        /// The number's literal text, e.g. `"36"` or `"1.5e3"`.
        case number(String)
        case string(String)
        case array
        case object

        /// "a string", "an array", … for messages.
        var kind: String {
            switch self {
            case .null: "null"
            case .bool: "a boolean"
            case .number: "a number"
            case .string: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        }
    }

    /// Why the bytes are not a JSON object; `message` completes "data …".
    struct Failure: Error, Equatable {
        var message: String
    }

    /// Deeper nesting is rejected rather than risking the stack.
    static let maxDepth = 64

    /// The top-level object's members.
    /// - throws: ``Failure`` when the bytes are not exactly one JSON object.
    static func members(of data: Data) throws(Failure) -> [String: Value] {
        var reader = JSONObjectReader(bytes: Array(data))
        if let offset = reader.firstInvalidUTF8Offset() {
            throw Failure(message: "is not valid JSON: invalid UTF-8 at byte \(offset)")
        }
        reader.skipWhitespace()
        guard reader.peek() == UInt8(ascii: "{") else {
            let value = try reader.parseValue(depth: 0)
            throw Failure(message: "must be a JSON object (got \(value.kind))")
        }
        let members = try reader.parseObject(depth: 0)
        reader.skipWhitespace()
        guard reader.index == reader.bytes.count else { throw reader.unexpected() }
        return members
    }

    private let bytes: [UInt8]
    private var index = 0

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: - Grammar

    private mutating func parseValue(depth: Int) throws(Failure) -> Value {
        skipWhitespace()
        guard let byte = peek() else { throw unexpected() }
        switch byte {
        case UInt8(ascii: "{"):
            _ = try parseObject(depth: depth)
            return .object
        case UInt8(ascii: "["):
            try parseArray(depth: depth)
            return .array
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default:
            throw unexpected()
        }
    }

    private mutating func parseObject(depth: Int) throws(Failure) -> [String: Value] {
        try enter(depth)
        index += 1  // {
        var members: [String: Value] = [:]
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return members
        }
        while true {
            skipWhitespace()
            let keyOffset = index
            guard peek() == UInt8(ascii: "\"") else { throw unexpected() }
            let key = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            let value = try parseValue(depth: depth + 1)
            guard members.updateValue(value, forKey: key) == nil else {
                throw Failure(message: "is not valid JSON: duplicate key \(DomainEvent.quoted(key)) at byte \(keyOffset)")
            }
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"))
            return members
        }
    }

    private mutating func parseArray(depth: Int) throws(Failure) {
        try enter(depth)
        index += 1  // [
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            _ = try parseValue(depth: depth + 1)
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "]"))
            return
        }
    }

    private mutating func parseString() throws(Failure) -> String {
        index += 1  // opening quote
        // Most strings (every key, most values) have no escape: made from their bytes at once
        // (a short one without allocating), not copied byte by byte into a buffer first.
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"),
              bytes[index] >= 0x20 {
            index += 1
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return String(decoding: bytes[start..<index - 1], as: UTF8.self)
        }
        var buffer = Array(bytes[start..<index])
        while true {
            guard let byte = peek() else { throw unexpected() }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                // The input was validated as UTF-8 and escapes add whole scalars.
                return String(decoding: buffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            case 0x00..<0x20:
                throw Failure(message: "is not valid JSON: control character in string at byte \(index)")
            default:
                buffer.append(byte)
                index += 1
            }
        }
    }

    private mutating func parseEscape(into buffer: inout [UInt8]) throws(Failure) {
        let start = index
        index += 1  // backslash
        guard let byte = peek() else { throw unexpected() }
        index += 1
        let simple: UInt8? = switch byte {
        case UInt8(ascii: "\""): UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): UInt8(ascii: "\\")
        case UInt8(ascii: "/"): UInt8(ascii: "/")
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
        if let simple {
            buffer.append(simple)
            return
        }
        guard byte == UInt8(ascii: "u") else {
            throw Failure(message: "is not valid JSON: invalid escape at byte \(start)")
        }
        var value = try parseHex4()
        if (0xDC00...0xDFFF).contains(value) {
            throw Failure(message: "is not valid JSON: unpaired surrogate escape at byte \(start)")
        }
        if (0xD800...0xDBFF).contains(value) {
            guard peek() == UInt8(ascii: "\\"), peek(1) == UInt8(ascii: "u") else {
                throw Failure(message: "is not valid JSON: unpaired surrogate escape at byte \(start)")
            }
            index += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw Failure(message: "is not valid JSON: unpaired surrogate escape at byte \(start)")
            }
            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        }
        // Surrogates were handled above, so this always succeeds.
        guard let scalar = Unicode.Scalar(value) else {
            throw Failure(message: "is not valid JSON: invalid escape at byte \(start)")
        }
        UTF8.encode(scalar) { buffer.append($0) }
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek() else { throw unexpected() }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw unexpected()
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func parseNumber() throws(Failure) -> String {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        if peek() == UInt8(ascii: "0") {
            index += 1
        } else {
            try digits()
        }
        if peek() == UInt8(ascii: ".") {
            index += 1
            try digits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            try digits()
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// One or more ASCII digits.
    private mutating func digits() throws(Failure) {
        guard let first = peek(), isDigit(first) else { throw unexpected() }
        while let byte = peek(), isDigit(byte) { index += 1 }
    }

    private mutating func expectLiteral(_ literal: String) throws(Failure) {
        for expected in literal.utf8 {
            guard peek() == expected else { throw unexpected() }
            index += 1
        }
    }

    // MARK: - Helpers

    private func enter(_ depth: Int) throws(Failure) {
        guard depth < Self.maxDepth else {
            throw Failure(message: "is not valid JSON: nested deeper than \(Self.maxDepth) at byte \(index)")
        }
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard peek() == byte else { throw unexpected() }
        index += 1
    }

    private func peek(_ offset: Int = 0) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            index += 1
        }
    }

    private func unexpected() -> Failure {
        guard index < bytes.count else { return Failure(message: "is not valid JSON: unexpected end of data") }
        return Failure(message: "is not valid JSON: unexpected \(describe(peek())) at byte \(index)")
    }

    private func describe(_ byte: UInt8?) -> String {
        guard let byte else { return "end of data" }
        if byte >= 0x21 && byte <= 0x7E { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    /// Offset of the first byte that is not part of well-formed UTF-8, if any.
    private func firstInvalidUTF8Offset() -> Int? {
        var i = 0
        while i < bytes.count {
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var scalar: UInt32
            let minimum: UInt32
            switch lead {
            case 0xC0...0xDF: (length, scalar, minimum) = (2, UInt32(lead & 0x1F), 0x80)
            case 0xE0...0xEF: (length, scalar, minimum) = (3, UInt32(lead & 0x0F), 0x800)
            case 0xF0...0xF7: (length, scalar, minimum) = (4, UInt32(lead & 0x07), 0x10000)
            default: return i
            }
            guard i + length <= bytes.count else { return i }
            for k in 1..<length {
                let continuation = bytes[i + k]
                guard continuation & 0xC0 == 0x80 else { return i }
                scalar = scalar << 6 | UInt32(continuation & 0x3F)
            }
            guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return i }
            i += length
        }
        return nil
    }
}

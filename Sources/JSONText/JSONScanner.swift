/// A strict, single-pass JSON scanner over borrowed bytes: the one reader of JSON in Chronicle
/// (event data in the domain, the wire protocol's bodies on both ends).
///
/// Event data is hashed and shared between platforms, so every reader must agree on what it
/// means. Foundation's parsers differ between Darwin and Linux and are lenient where this one
/// is not: it takes exactly RFC 8259 in UTF-8 (no byte-order mark, comments, trailing commas,
/// `NaN`, leading zeros or single quotes), refuses invalid UTF-8 (overlong forms, surrogates,
/// cut sequences) and unpaired surrogate escapes, refuses a key given twice in any object it
/// skips, and nests at most ``maxDepth`` levels, so no input can exhaust the stack. Every
/// failure is a ``JSONSyntaxError`` with the byte offset.
///
/// The scanner is a cursor: its caller walks the grammar it expects and reads each value with
/// the method for its kind, so a document is read once and nothing is built that the caller
/// does not keep. The bytes must outlive the scanner (use it inside `withUnsafeBytes`).
///
/// ```swift
/// let name: String? = try data.withUnsafeBytes { bytes throws(JSONSyntaxError) in
///     var scanner = JSONScanner(bytes)
///     var name: String?
///     if try scanner.enterObject() {
///         repeat {
///             if try scanner.memberName() == "name" { name = try scanner.string() } else { try scanner.skipValue(depth: 1) }
///         } while try scanner.nextMember()
///     }
///     try scanner.end()
///     return name
/// }
/// ```
public struct JSONScanner {
    /// What a value is, from its first byte.
    public enum ValueKind: Sendable, Equatable {
        case object, array, string, number, bool, null
    }

    /// How many objects and arrays may nest, counting the outermost.
    public static let maxDepth = 128

    /// The document.
    public let bytes: UnsafeRawBufferPointer
    /// The cursor: the offset of the next byte to read.
    public private(set) var offset = 0

    /// A scanner at the start of `bytes`.
    public init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset >= bytes.count }

    /// The kind of the value that starts at the cursor (after whitespace), or `nil` at the end
    /// of the bytes or at a byte that starts no value.
    public mutating func nextValueKind() -> ValueKind? {
        skipWhitespace()
        guard let byte = peek() else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return nil
        }
    }

    // MARK: Containers

    /// Reads `{` and returns whether a member follows (`false`: the object was `{}`, now read).
    public mutating func enterObject() throws(JSONSyntaxError) -> Bool {
        try enter(opening: UInt8(ascii: "{"), closing: UInt8(ascii: "}"))
    }

    /// Reads a member's name and the `:` after it; the cursor is then on the member's value.
    public mutating func memberName() throws(JSONSyntaxError) -> String {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw unexpected() }
        let name = try string()
        skipWhitespace()
        try expect(UInt8(ascii: ":"))
        return name
    }

    /// Reads a member's name and the `:` after it, like ``memberName()``, and refuses a name
    /// that `names` (the names of this object so far) already holds.
    public mutating func memberName(unique names: inout JSONMemberNames) throws(JSONSyntaxError) -> String {
        let (content, escaped) = try uniqueName(&names)
        let name = Self.text(content, escaped: escaped, in: bytes)
        skipWhitespace()
        try expect(UInt8(ascii: ":"))
        return name
    }

    /// Reads a member's name and the `:` after it, as ``memberName(unique:)`` does, and returns
    /// it as ``stringInPlace()`` does: the range of its bytes when it has no escapes, so that a
    /// reader matches it against the names it knows without making a `String`.
    public mutating func memberNameInPlace(unique names: inout JSONMemberNames) throws(JSONSyntaxError) -> StringContent {
        let (content, escaped) = try uniqueName(&names)
        skipWhitespace()
        try expect(UInt8(ascii: ":"))
        return escaped ? .text(Self.text(content, escaped: true, in: bytes)) : .bytes(content)
    }

    /// After a member's value: reads `,` and returns `true`, or reads `}` and returns `false`.
    public mutating func nextMember() throws(JSONSyntaxError) -> Bool {
        try separator(closing: UInt8(ascii: "}"))
    }

    /// Reads `[` and returns whether an element follows (`false`: the array was `[]`, now read).
    public mutating func enterArray() throws(JSONSyntaxError) -> Bool {
        try enter(opening: UInt8(ascii: "["), closing: UInt8(ascii: "]"))
    }

    /// After an element: reads `,` and returns `true`, or reads `]` and returns `false`.
    public mutating func nextElement() throws(JSONSyntaxError) -> Bool {
        try separator(closing: UInt8(ascii: "]"))
    }

    /// Checks that only whitespace is left.
    public mutating func end() throws(JSONSyntaxError) {
        skipWhitespace()
        guard isAtEnd else { throw unexpected() }
    }

    // MARK: Scalars

    /// Reads a string and returns its value.
    public mutating func string() throws(JSONSyntaxError) -> String {
        let (content, escaped) = try stringContent()
        return Self.text(content, escaped: escaped, in: bytes)
    }

    /// Reads a string and returns the range of its content in ``bytes`` when it has no escapes
    /// (then those bytes are its value, checked UTF-8), else its value: a reader that keeps
    /// bytes copies them, making no `String`.
    public mutating func stringInPlace() throws(JSONSyntaxError) -> StringContent {
        let (content, escaped) = try stringContent()
        return escaped ? .text(Self.text(content, escaped: true, in: bytes)) : .bytes(content)
    }

    /// A string's content, as ``stringInPlace()`` reads it.
    public enum StringContent {
        /// The range in ``JSONScanner/bytes`` of a string with no escapes.
        case bytes(Range<Int>)
        /// The value of a string with escapes.
        case text(String)
    }

    /// Reads a number and returns the range of its literal text in ``bytes``, checked against
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, and refused when its magnitude
    /// overflows a `Double` (as Foundation's reader refuses it; a tiny one reads as 0 in both).
    public mutating func number() throws(JSONSyntaxError) -> Range<Int> {
        skipWhitespace()
        let start = offset
        if peek() == UInt8(ascii: "-") { offset += 1 }
        guard let first = peek(), Self.isDigit(first) else { throw unexpected() }
        offset += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            offset += 1
            try oneOrMoreDigits()
        }
        var hasExponent = false
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            offset += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { offset += 1 }
            try oneOrMoreDigits()
            hasExponent = true
        }
        // Only an exponent or more than 308 digits can overflow: most numbers skip the check.
        if hasExponent || offset - start > 308 {
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
            guard Double(text)?.isFinite == true else { throw JSONSyntaxError(.numberOutOfRange, at: start) }
        }
        return start..<offset
    }

    /// Reads a number and returns its literal text, e.g. `"36"` or `"1.5e3"`.
    public mutating func numberText() throws(JSONSyntaxError) -> String {
        let range = try number()
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Reads `true` or `false`.
    public mutating func bool() throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        if peek() == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    /// Reads `null`.
    public mutating func null() throws(JSONSyntaxError) {
        skipWhitespace()
        try literal("null")
    }

    /// Reads any value, checking it to its end, and returns the range of its bytes. `depth`
    /// is how many containers already enclose it (``maxDepth`` counts them too).
    @discardableResult
    public mutating func skipValue(depth: Int = 0) throws(JSONSyntaxError) -> Range<Int> {
        skipWhitespace()
        let start = offset
        guard let kind = nextValueKind() else { throw unexpected() }
        switch kind {
        case .object: try skipObject(depth: depth)
        case .array:
            try checkDepth(depth)
            if try enterArray() {
                repeat { try skipValue(depth: depth + 1) } while try nextElement()
            }
        case .string: _ = try stringContent()
        case .number: _ = try number()
        case .bool: _ = try bool()
        case .null: try null()
        }
        return start..<offset
    }

    // MARK: Failures

    /// A failure at the cursor: the byte there was not expected (or the bytes ended).
    public func unexpected() -> JSONSyntaxError {
        guard let byte = peek() else { return JSONSyntaxError(.unexpectedEnd, at: offset) }
        return JSONSyntaxError(.unexpected(byte), at: offset)
    }

    // MARK: - Internals

    private mutating func skipObject(depth: Int) throws(JSONSyntaxError) {
        try checkDepth(depth)
        guard try enterObject() else { return }
        var names = JSONMemberNames()
        repeat {
            _ = try uniqueName(&names)
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            try skipValue(depth: depth + 1)
        } while try nextMember()
    }

    /// Reads a member's name (as a range of ``bytes``, and whether it has escapes), refusing
    /// one that `names` already holds.
    private mutating func uniqueName(_ names: inout JSONMemberNames) throws(JSONSyntaxError) -> (Range<Int>, escaped: Bool) {
        skipWhitespace()
        let nameOffset = offset
        let (content, escaped) = try stringContent()
        guard names.insert(content, escaped: escaped, in: bytes) else {
            throw JSONSyntaxError(.duplicateKey(Self.text(content, escaped: escaped, in: bytes)), at: nameOffset)
        }
        return (content, escaped)
    }

    private func checkDepth(_ depth: Int) throws(JSONSyntaxError) {
        guard depth < Self.maxDepth else { throw JSONSyntaxError(.tooDeep, at: offset) }
    }

    /// Reads `opening`; returns whether something follows before `closing` (read if not).
    private mutating func enter(opening: UInt8, closing: UInt8) throws(JSONSyntaxError) -> Bool {
        try expect(opening)
        skipWhitespace()
        guard peek() == closing else { return true }
        offset += 1
        return false
    }

    private mutating func separator(closing: UInt8) throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            offset += 1
            return true
        case closing:
            offset += 1
            return false
        default:
            throw unexpected()
        }
    }

    /// Reads a string (after whitespace, at its opening quote); returns the range of its
    /// content and whether it has escapes.
    private mutating func stringContent() throws(JSONSyntaxError) -> (Range<Int>, escaped: Bool) {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw unexpected() }
        offset += 1
        let start = offset
        var escaped = false
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                return (start..<offset - 1, escaped)
            case UInt8(ascii: "\\"):
                escaped = true
                try skipEscape()
            case 0..<0x20:
                throw JSONSyntaxError(.controlCharacter, at: offset)
            case 0x20..<0x80:
                offset += 1
            default:
                try skipUTF8Sequence(lead: byte)
            }
        }
        throw JSONSyntaxError(.unexpectedEnd, at: offset)
    }

    private mutating func skipEscape() throws(JSONSyntaxError) {
        let start = offset
        guard offset + 1 < bytes.count else { throw JSONSyntaxError(.unexpectedEnd, at: bytes.count) }
        switch bytes[offset + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            offset += 2
        case UInt8(ascii: "u"):
            offset += 2
            let unit = try hex4()
            if (0xD800..<0xDC00).contains(unit) {
                guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                    throw JSONSyntaxError(.unpairedSurrogate, at: start)
                }
                offset += 2
                guard (0xDC00..<0xE000).contains(try hex4()) else { throw JSONSyntaxError(.unpairedSurrogate, at: start) }
            } else if (0xDC00..<0xE000).contains(unit) {
                throw JSONSyntaxError(.unpairedSurrogate, at: start)
            }
        default:
            throw JSONSyntaxError(.invalidEscape, at: start)
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = Self.hexDigit(byte) else { throw unexpected() }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    /// Checks one multi-byte UTF-8 sequence (no overlong form, no surrogate, at most U+10FFFF).
    private mutating func skipUTF8Sequence(lead: UInt8) throws(JSONSyntaxError) {
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
        default: throw JSONSyntaxError(.invalidUTF8, at: offset)
        }
        guard bytes.count - offset >= length else { throw JSONSyntaxError(.invalidUTF8, at: offset) }
        let second = bytes[offset + 1]
        guard second >= lower, second <= upper else { throw JSONSyntaxError(.invalidUTF8, at: offset) }
        for index in 2..<length where bytes[offset + index] & 0xC0 != 0x80 {
            throw JSONSyntaxError(.invalidUTF8, at: offset)
        }
        offset += length
    }

    /// The value of a checked string whose content is `range` of `bytes`. Checked as UTF-8 while
    /// scanned, so bytes without escapes are made into a string as they are.
    static func text(_ range: Range<Int>, escaped: Bool, in bytes: UnsafeRawBufferPointer) -> String {
        let content = UnsafeRawBufferPointer(rebasing: bytes[range])
        return escaped ? unescaped(content) : String(decoding: content, as: UTF8.self)
    }

    /// The value of a checked string's content that has escapes.
    private static func unescaped(_ content: UnsafeRawBufferPointer) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(content.count)
        func hex(_ at: Int) -> UInt32 {
            content[at..<at + 4].reduce(0) { $0 << 4 | UInt32(hexDigit($1) ?? 0) }
        }
        var index = 0
        while index < content.count {
            let byte = content[index]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                index += 1
                continue
            }
            let kind = content[index + 1]
            index += 2
            switch kind {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex(index)
                index += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hex(index + 2) - 0xDC00)
                    index += 6
                }
                // Checked while scanned: never a lone surrogate.
                UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { out.append($0) }
            default:
                out.append(kind)   // " \ /
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        for index in 0..<word.utf8CodeUnitCount {
            guard peek() == word.utf8Start[index] else { throw unexpected() }
            offset += 1
        }
    }

    private mutating func oneOrMoreDigits() throws(JSONSyntaxError) {
        guard let byte = peek(), Self.isDigit(byte) else { throw unexpected() }
        skipDigits()
    }

    private mutating func skipDigits() {
        while offset < bytes.count, Self.isDigit(bytes[offset]) { offset += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(JSONSyntaxError) {
        skipWhitespace()
        guard peek() == byte else { throw unexpected() }
        offset += 1
    }

    private func peek() -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

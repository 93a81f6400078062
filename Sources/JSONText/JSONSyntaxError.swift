/// Why bytes are not the JSON they should be, and where: the failure of every ``JSONScanner``
/// read. Its description is one line, such as `unexpected '}' at byte 7`.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Equatable, Sendable {
        /// The bytes ended inside a value.
        case unexpectedEnd
        /// A byte the grammar does not allow where it stands.
        case unexpected(UInt8)
        /// A byte sequence that is not well-formed UTF-8 (in a string: only there can bytes
        /// above 0x7F stand).
        case invalidUTF8
        /// A raw control character (below 0x20) in a string: JSON requires it escaped.
        case controlCharacter
        /// A backslash followed by something other than `" \ / b f n r t u`.
        case invalidEscape
        /// A `\u` escape of half a UTF-16 surrogate pair without its other half.
        case unpairedSurrogate
        /// Objects and arrays nested deeper than ``JSONScanner/maxDepth``.
        case tooDeep
        /// A name given twice in one object (the name, unescaped).
        case duplicateKey(String)
        /// A number too large for a 64-bit floating-point value (`1e309`): JSON readers
        /// such as Foundation's refuse it, so Chronicle's does too.
        case numberOutOfRange
    }

    /// What is wrong.
    public var reason: Reason
    /// The offset of the byte where it was found.
    public var offset: Int

    /// A failure of `reason` at byte `offset`.
    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        switch reason {
        case .unexpectedEnd: "unexpected end of data"
        case .unexpected(let byte): "unexpected \(Self.describe(byte)) at byte \(offset)"
        case .invalidUTF8: "invalid UTF-8 at byte \(offset)"
        case .controlCharacter: "control character in string at byte \(offset)"
        case .invalidEscape: "invalid escape at byte \(offset)"
        case .unpairedSurrogate: "unpaired surrogate escape at byte \(offset)"
        case .tooDeep: "nested deeper than \(JSONScanner.maxDepth) levels at byte \(offset)"
        case .duplicateKey(let name): "duplicate key \(JSONQuoting.quoted(String(name.unicodeScalars.prefix(64)))) at byte \(offset)"
        case .numberOutOfRange: "number too large for a 64-bit float at byte \(offset)"
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte <= 0x7E { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
}

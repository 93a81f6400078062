import Foundation
import JSONText

/// The shape rules every stored event obeys, checked before anything is written (and by
/// the wire parser, so a body that breaks them is refused before it reaches a log).
public enum EventValidation {
    /// The longest stream name, in UTF-8 bytes.
    public static let maxStreamBytes = 512
    /// The longest event type, in UTF-8 bytes.
    public static let maxTypeBytes = 256
    /// The largest event data.
    public static let maxDataBytes = 8 << 20
    /// The longest origin (device id), in UTF-8 bytes: the record keeps its length in a u16.
    public static let maxOriginBytes = 256

    /// A stream name: 1 to ``maxStreamBytes`` bytes, no NUL.
    public static func check(stream: String) throws(EventValidationError) {
        let bytes = stream.utf8.count
        guard bytes > 0 else { throw .invalidEvent("stream name must not be empty") }
        guard bytes <= maxStreamBytes else { throw .invalidEvent("stream name is longer than \(maxStreamBytes) bytes") }
        // Searched in the string's contiguous bytes: through its UTF-8 view, byte by byte, the
        // search cost a fifth of an append's validation.
        var stream = stream
        let hasNUL = stream.withUTF8 { memchr($0.baseAddress!, 0, $0.count) != nil }
        guard !hasNUL else { throw .invalidEvent("stream name must not contain NUL") }
    }

    /// A type of 1 to ``maxTypeBytes`` bytes and data that is one JSON object of at most ``maxDataBytes``.
    public static func check(type: String, data: Data) throws(EventValidationError) {
        let bytes = type.utf8.count
        guard bytes > 0 else { throw .invalidEvent("event type must not be empty") }
        guard bytes <= maxTypeBytes else { throw .invalidEvent("event type is longer than \(maxTypeBytes) bytes") }
        guard data.count <= maxDataBytes else { throw .invalidEvent("event data is larger than \(maxDataBytes) bytes") }
        // One JSON object, read by the rules every reader of event data holds it to (the domain,
        // the wire): a payload the log takes can be decoded everywhere, forever.
        let isObject: Result<Bool, JSONSyntaxError> = data.withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            guard scanner.nextValueKind() == .object else { return .success(false) }
            do throws(JSONSyntaxError) {
                try scanner.skipValue()
                try scanner.end()
                return .success(true)
            } catch {
                return .failure(error)
            }
        }
        switch isObject {
        case .success(true): return
        case .success(false): throw .invalidEvent("event data must be a JSON object")
        case .failure(let error): throw .invalidEvent("event data is not valid JSON: \(error)")
        }
    }

    /// A schema version is 1 or more (`0` is never valid).
    public static func check(schemaVersion: UInt16) throws(EventValidationError) {
        guard schemaVersion >= 1 else { throw .invalidEvent("schema version must be at least 1") }
    }

    /// An origin of at most ``maxOriginBytes`` bytes.
    public static func check(origin: String) throws(EventValidationError) {
        guard origin.utf8.count <= maxOriginBytes else { throw .invalidEvent("origin is longer than \(maxOriginBytes) bytes") }
    }
}

/// Why an event breaks ``EventValidation``'s rules.
public struct EventValidationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, one line: "stream name must not be empty".
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    static func invalidEvent(_ reason: String) -> Self { Self(reason) }

    /// As the log and the wire word it: "invalid event: stream name must not be empty".
    public var description: String { "invalid event: \(reason)" }
}

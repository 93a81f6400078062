import Foundation
import Testing
import ChronicleTodoDomain

/// A day from a literal the test knows is valid.
func day(_ text: String) -> CalendarDay {
    do {
        return try CalendarDay(parsing: text)
    } catch {
        preconditionFailure("fixture date \(text) is invalid: \(error)")
    }
}

/// A fixed, recognizable id: `n` in the last 12 hex digits.
func uuid(_ n: Int) -> UUID {
    let tail = String(n, radix: 16)
    let padded = String(repeating: "0", count: 12 - tail.count) + tail
    return UUID(uuidString: "00000000-0000-4000-8000-\(padded)")!
}

/// Parses JSON bytes into a dictionary, failing the test if it is not an object.
func jsonObject(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    return try #require(object as? [String: Any], sourceLocation: sourceLocation)
}

/// Encodes a value with sorted keys, as the CLI prints it, into a string.
func jsonString(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

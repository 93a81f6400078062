import ChronicleTestSupport
import Foundation
import Testing

/// What a `ChronicleTorture` writer logged as acknowledged: one line per event (or per
/// stream a domain command appended to), written and fsynced after the append returned.
enum AckFile {
    /// The complete lines of the file; a last line cut short by a kill is dropped, and a
    /// writer killed before it created the file acknowledged nothing.
    static func lines(_ path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()   // after the final newline: empty, or an unfinished line
        return lines
    }

    /// `append-burst` lines: `position id`.
    static func events(_ path: String) throws -> [(position: UInt64, id: UUID)] {
        try lines(path).map { line in
            let parts = line.split(separator: " ")
            let position = try #require(parts.count == 2 ? UInt64(parts[0]) : nil, "bad ack line '\(line)'")
            let id = try #require(UUID(uuidString: String(parts[1])), "bad ack line '\(line)'")
            return (position, id)
        }
    }

    /// `domain-writer` lines: `stream version type`.
    static func domain(_ path: String) throws -> [DomainAck] {
        try lines(path).map { line in
            let parts = line.split(separator: " ").map(String.init)
            let version = try #require(parts.count == 3 ? UInt64(parts[1]) : nil, "bad ack line '\(line)'")
            return DomainAck(stream: parts[0], version: version, type: parts[2])
        }
    }
}

/// One stream a domain command appended to: the event of `type` at `version`.
struct DomainAck: Hashable, Sendable {
    var stream: String
    var version: UInt64
    var type: String
}

/// `acked N` with N at least `count`.
func isAck(atLeast count: Int) -> @Sendable (String) -> Bool {
    { line in line.hasPrefix("acked ") && (Int(line.dropFirst(6)) ?? 0) >= count }
}

/// What a stream's version must be for an append to go through (optimistic concurrency).
///
/// ```swift
/// try await log.append(to: "todo-1", expected: .noStream, events: [created])
/// try await log.append(to: "todo-1", expected: .exact(1), events: [completed])
/// ```
public enum ExpectedVersion: Sendable, Hashable, CustomStringConvertible {
    /// No check.
    case any
    /// The stream must not exist yet.
    case noStream
    /// The stream's last version must be exactly this.
    case exact(UInt64)

    /// Whether a stream whose last version is `actual` (0 = no stream) satisfies this.
    public func isSatisfied(byActual actual: UInt64) -> Bool {
        switch self {
        case .any: true
        case .noStream: actual == 0
        case .exact(let version): actual == version
        }
    }

    public var description: String {
        switch self {
        case .any: "any"
        case .noStream: "no stream"
        case .exact(let version): "version \(version)"
        }
    }
}

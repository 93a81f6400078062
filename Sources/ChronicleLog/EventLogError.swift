import Foundation
import ChronicleLMDB

/// Why the event log refused an operation. Each message is one line a person can act on.
public enum EventLogError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A stream was not at the expected version; the whole batch was refused.
    case conflict(stream: String, expected: ExpectedVersion, actual: UInt64)
    /// A key condition of the batch failed (see ``AppendKey``); the whole batch was refused.
    case keyConflict(key: String, reason: String)
    /// An event or batch was malformed (empty stream, bad JSON payload, …).
    case invalidEvent(String)
    /// The store was written by a newer Chronicle.
    case newerFormat(found: UInt8, supported: UInt8)
    /// A stored record could not be read.
    case corruptRecord(position: UInt64, reason: String)
    /// The path is not a Chronicle store or cannot be opened.
    case cannotOpen(path: String, reason: String)
    /// The log was closed.
    case closed
    /// LMDB reported an error.
    case storage(LMDBError)

    public var description: String {
        switch self {
        case let .conflict(stream, expected, actual):
            let found = actual == 0 ? "no stream" : "version \(actual)"
            return "conflict on stream '\(stream)': expected \(expected), found \(found)"
        case let .keyConflict(key, reason):
            return "conflict on key '\(key)': \(reason)"
        case .invalidEvent(let why):
            return "invalid event: \(why)"
        case let .newerFormat(found, supported):
            return "this store uses format \(found); this chronicle reads up to format \(supported): upgrade chronicle"
        case let .corruptRecord(position, reason):
            return "the store is damaged at position \(position): \(reason); run 'chronicle verify'"
        case let .cannotOpen(path, reason):
            return "cannot open store at \(path): \(reason)"
        case .closed:
            return "the event log is closed"
        case .storage(let error):
            return error.description
        }
    }
}

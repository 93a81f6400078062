import Domain
import EventLog

/// Why a `ChronicleStore` call failed. Every message is one line a person can act on.
public enum ChronicleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The command broke a domain rule (validation, unknown or deleted entity, …). Nothing was appended.
    case rejected(DomainError)
    /// Other writers kept changing what the command read (``ChronicleStore`` decides again
    /// after each conflict, a bounded number of times). Nothing was appended.
    case conflict(String)
    /// A stored event could not be decoded.
    case corruptEvent(position: UInt64, reason: String)
    /// The folder cannot hold a store (see ``StoreFolder``). Nothing was written.
    case notAStore(path: String, reason: String)
    /// The store was closed (``ChronicleStore/close()``): open it again to use it.
    case closed

    public var description: String {
        switch self {
        case .rejected(let error): error.description
        case .conflict(let detail): "what this command read kept changing concurrently, try again (\(detail))"
        case let .corruptEvent(position, reason): "stored event \(position) cannot be read: \(reason)"
        case let .notAStore(path, reason): "cannot use '\(path)' as a store: \(reason)"
        case .closed: "the store is closed"
        }
    }
}

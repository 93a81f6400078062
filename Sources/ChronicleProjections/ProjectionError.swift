import ChronicleLog
import ChronicleLMDB

/// Why a read-model operation failed. Each message is one line a person can act on.
public enum ProjectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The read model's folder cannot be opened.
    case cannotOpen(path: String, reason: String)
    /// LMDB reported an error.
    case storage(LMDBError)
    /// A stored model value or key cannot be decoded.
    case corruptModel(String)
    /// Another rebuild of a declared model's stored entities started meanwhile and replaced this one.
    case supersededEntities
    /// A position past the end of the log was asked for.
    case beyondHead(position: UInt64, head: UInt64)
    /// A query named an entity, field or aggregate the model does not declare.
    case notInModel(String)

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason):
            "cannot open the read models at \(path): \(reason)"
        case .storage(let error):
            "read models: \(error.description)"
        case .corruptModel(let what):
            "a read model is damaged (\(what)); run 'chronicle rebuild'"
        case .supersededEntities:
            "the rebuild of the stored entities was replaced by a newer rebuild started meanwhile"
        case let .beyondHead(position, head):
            "position \(position) is past the end of the log (head \(head))"
        case .notInModel(let what):
            what
        }
    }
}

import ChronicleSchema
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleProjections

/// Why a `ChronicleStore` call failed: the one error type its methods throw (declared as an
/// untyped `throws`), with cases an app can match. Every message is one line a person can act on.
///
/// ```swift
/// do {
///     try await store.completeTodo(id)
/// } catch ChronicleError.rejected(let rule) {
///     show(rule.description)          // "todo … is already completed"
/// } catch ChronicleError.closed {
///     reopen()
/// } catch {
///     log("\(error)")
/// }
/// ```
public enum ChronicleError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The command broke a domain rule (validation, unknown or deleted entity, …). Nothing was appended.
    case rejected(DomainError)
    /// A rule of the app's declared model refused a command on one of its entities (a field's
    /// rule, a unique value taken, a parent not live, …). Nothing was appended.
    case refused(ChronicleModel.CommandProblem)
    /// Other writers kept changing what the command read: the store decided again after each
    /// conflict, a bounded number of times, and gave up. Nothing was appended.
    case conflict(String)
    /// A stored event could not be decoded.
    case corruptEvent(position: UInt64, reason: String)
    /// The store's files are damaged (a record or a read model fails its checks; the message
    /// says where): restore a backup, or rebuild damaged read models
    /// (``ChronicleStore/rebuild(progress:)``).
    case damaged(String)
    /// The folder cannot hold a store (see ``StoreFolder``). Nothing was written.
    case notAStore(path: String, reason: String)
    /// The store cannot be opened: no access, or written by a newer version of Chronicle.
    case cannotOpen(path: String, reason: String)
    /// The store was closed (``ChronicleStore/close()``): open it again to use it.
    case closed
    /// The disk or the database failed (full disk, I/O error, out of map space).
    case storage(String)
    /// A position past the log's end was asked for.
    case beyondHead(position: UInt64, head: UInt64)
    /// An argument the call cannot use (an event the log refuses on import, say). Nothing was written.
    case invalidInput(String)
    /// Sync failed (see `SyncError` for which failures a retry may cure).
    case sync(SyncError)
    /// The task was cancelled before the call finished; nothing it had not written was written.
    case cancelled

    public var description: String {
        switch self {
        case .rejected(let error): error.description
        case .refused(let problem): problem.description
        case .conflict(let detail): "what this command read kept changing concurrently, try again (\(detail))"
        case let .corruptEvent(position, reason): "stored event \(position) cannot be read: \(reason)"
        case .damaged(let what): what
        case let .notAStore(path, reason): "cannot use '\(path)' as a store: \(reason)"
        case let .cannotOpen(path, reason) where path.isEmpty: "cannot open the store: \(reason)"
        case let .cannotOpen(path, reason): "cannot open the store at '\(path)': \(reason)"
        case .closed: "the store is closed"
        case .storage(let why): "storage failed: \(why)"
        case let .beyondHead(position, head): "position \(position) is past the log's end (\(head))"
        case .invalidInput(let why): why
        case .sync(let error): error.description
        case .cancelled: "cancelled"
        }
    }

    /// `error` as the case an app switches on.
    public init(_ error: any Error) {
        switch error {
        case let error as ChronicleError: self = error
        case let error as DomainError: self = .rejected(error)
        case let error as ChronicleModel.CommandProblem: self = .refused(error)
        case let error as EventLogError: self = Self(error)
        case let error as ProjectionError: self = Self(error)
        case let error as SyncError: self = .sync(error)
        case is CancellationError: self = .cancelled
        default: self = .storage("\(error)")
        }
    }

    private init(_ error: EventLogError) {
        switch error {
        case .conflict, .keyConflict: self = .conflict(error.description)
        case .invalidEvent(let why): self = .invalidInput(why)
        case .newerFormat: self = .cannotOpen(path: "", reason: error.description)
        case .corruptRecord: self = .damaged(error.description)
        case let .cannotOpen(path, reason): self = .cannotOpen(path: path, reason: reason)
        case .closed: self = .closed
        case .storage: self = .storage(error.description)
        }
    }

    private init(_ error: ProjectionError) {
        switch error {
        case let .cannotOpen(path, reason): self = .cannotOpen(path: path, reason: reason)
        case .storage: self = .storage(error.description)
        case .corruptModel: self = .damaged(error.description)
        case .supersededEntities: self = .conflict(error.description)
        case let .beyondHead(position, head): self = .beyondHead(position: position, head: head)
        case .notInModel(let what): self = .invalidInput(what)
        }
    }

    /// Runs `body`, throwing what it throws as a ``ChronicleError``.
    static func mapping<T>(_ body: () throws -> T) throws(ChronicleError) -> T {
        do { return try body() } catch { throw ChronicleError(error) }
    }

    /// Runs `body`, throwing what it throws as a ``ChronicleError``.
    nonisolated(nonsending) static func mapping<T>(_ body: () async throws -> T) async throws(ChronicleError) -> T {
        do { return try await body() } catch { throw ChronicleError(error) }
    }
}

import ChronicleLog
import Foundation
import ChronicleLMDB

/// The sync state a store keeps about its one upstream, in the named database `sync` of the
/// log's LMDB environment, so a restarted process resumes where the last one stopped.
///
/// The acknowledged position belongs to the store, whatever URL the next push names:
/// the server's idempotency makes a re-push to a new URL harmless.
struct SyncState: Codable, Sendable, Hashable {
    /// Every event up to here is acknowledged by the remote.
    var ackedPosition: UInt64 = 0
    /// Failed tries since the last acknowledged batch.
    var attempts: Int = 0
    /// Why the last try failed; `nil` after a success.
    var lastError: String?
    /// The last failure will not heal by waiting (a 4xx other than 408/429).
    var lastErrorIsPermanent = false
    /// The server refused the last try because an operator revoked this device.
    var deviceRevoked = false
    /// When the next try is due after a retryable failure (Unix milliseconds).
    var nextTryAt: Int64?
    /// When the last batch was acknowledged (Unix milliseconds).
    var lastSuccessAt: Int64?
    /// The URL of the last push (for people reading the status; it does not key the state).
    var remote: String?
    /// The server position of the last event pulled and merged: the next pull asks for what follows.
    var pulledPosition: UInt64 = 0
    /// What sync has done over the store's life (every process, every run).
    var counters = SyncCounters()

    init() {}

    /// Tolerant: a member that is missing takes its default, so a field added by a later
    /// release never makes a store written by an earlier one unreadable.
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ackedPosition = try container.decodeIfPresent(UInt64.self, forKey: .ackedPosition) ?? 0
        attempts = try container.decodeIfPresent(Int.self, forKey: .attempts) ?? 0
        lastError = try container.decodeIfPresent(String.self, forKey: .lastError)
        lastErrorIsPermanent = try container.decodeIfPresent(Bool.self, forKey: .lastErrorIsPermanent) ?? false
        deviceRevoked = try container.decodeIfPresent(Bool.self, forKey: .deviceRevoked) ?? false
        nextTryAt = try container.decodeIfPresent(Int64.self, forKey: .nextTryAt)
        lastSuccessAt = try container.decodeIfPresent(Int64.self, forKey: .lastSuccessAt)
        remote = try container.decodeIfPresent(String.self, forKey: .remote)
        pulledPosition = try container.decodeIfPresent(UInt64.self, forKey: .pulledPosition) ?? 0
        counters = try container.decodeIfPresent(SyncCounters.self, forKey: .counters) ?? SyncCounters()
    }
}

/// What a store's sync has done over its life, across processes and runs: what an operator
/// graphs, and what `chronicle sync status --json` shows as `"counters"`.
public struct SyncCounters: Codable, Sendable, Hashable {
    /// Events the server acknowledged (stored now, or already had).
    public var pushed: UInt64 = 0
    /// Pulled events stored here (others' events; this store's own coming back store nothing).
    public var pulled: UInt64 = 0
    /// Failed tries, pushes and pulls (each one a retry, unless the failure was permanent).
    public var failures: UInt64 = 0

    /// Makes counters that all start at 0.
    public init() {}

    /// Tolerant, as ``SyncState`` is: a counter added later starts at 0 in an older store.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        pushed = try container.decodeIfPresent(UInt64.self, forKey: .pushed) ?? 0
        pulled = try container.decodeIfPresent(UInt64.self, forKey: .pulled) ?? 0
        failures = try container.decodeIfPresent(UInt64.self, forKey: .failures) ?? 0
    }
}

/// Reads and writes ``SyncState`` in its own LMDB transactions.
///
/// Several processes may sync one store (an app and `chronicle sync push`): updates are
/// read-modify-write in one write transaction, and the acknowledged and pulled positions only move forward.
struct SyncStateStore: Sendable {
    let environment: Environment
    let database: Database
    static let key = Array("state".utf8)

    init(log: EventLog) throws(SyncError) {
        do {
            environment = log.environment
            database = try log.environment.openDatabase(named: "sync")
        } catch {
            throw .storage("cannot open the sync database: \(error)")
        }
    }

    func load() throws(SyncError) -> SyncState {
        do {
            return try environment.read { txn in try Self.decode(txn.get(database, key: Self.key)) }
        } catch let error as SyncError {
            throw error
        } catch {
            throw .storage("cannot read: \(error)")
        }
    }

    /// Applies `change` to the stored state atomically and returns the result.
    @discardableResult
    func update(_ change: (inout SyncState) -> Void) throws(SyncError) -> SyncState {
        do {
            return try environment.write { txn in
                let stored = try Self.decode(txn.get(database, key: Self.key))
                var state = stored
                change(&state)
                state.ackedPosition = max(state.ackedPosition, stored.ackedPosition)
                state.pulledPosition = max(state.pulledPosition, stored.pulledPosition)
                let bytes = try JSONEncoder().encode(state)
                try txn.put(database, key: Self.key, value: Array(bytes))
                return state
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw .storage("cannot write: \(error)")
        }
    }

    private static func decode(_ value: UnsafeRawBufferPointer?) throws -> SyncState {
        guard let value else { return SyncState() }
        do {
            return try JSONDecoder().decode(SyncState.self, from: Data(value))
        } catch {
            throw SyncError.storage("the stored sync state is unreadable (\(error)); delete the 'sync' database to start over")
        }
    }
}

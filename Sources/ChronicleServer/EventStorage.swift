import ChronicleEvents
import Foundation

/// Where a sync server keeps its tenants, their tokens and their events: what the HTTP API
/// (``SyncAPI``) needs, and nothing of how.
///
/// - `LMDBEventStorage` (SyncServerLMDB): embedded, one event log per tenant in a folder (the default).
/// - `PostgresEventStorage` (module `SyncServerPostgres`): any number of server processes
///   on one PostgreSQL database.
///
/// Every implementation gives the same guarantees, which `EventStorageConformance` checks
/// against each: per tenant, positions 1, 2, 3, … without a gap; an event id stored once
/// (a batch re-sent answers the original positions); a batch stored whole or not at all;
/// a read never skips (once a position is served, nothing later appears at or below it);
/// tenants never see each other's events; a type or origin holding NUL is refused
/// (``EventStorageError/refuseNUL(in:)``), whether or not the storage could keep it.
public protocol EventStorage: Sendable, CustomStringConvertible {
    /// Gets ready to serve `tokens` (each maps a bearer token to its tenant): creates what
    /// is missing (folders, a database schema), records the tokens where others share them.
    func prepare(tokens: TokenTable) async throws
    /// The tenant `token` belongs to, nil for an unknown token.
    func tenant(forToken token: String) async throws -> String?
    /// Stores a pushed batch for `tenant`, all or nothing, each event id once.
    /// - returns: how many events were new, how many were known, and the tenant's last position.
    /// - throws: ``EventStorageError``.
    func append(_ events: [ForeignEvent], for tenant: String) async throws -> IngestResult
    /// The tenant's events after `position`, in order, at most `limit`, and no more of them
    /// than fit in `maxBytes` bytes of data (but always the first one), with its last position.
    func events(of tenant: String, after position: UInt64, limit: Int, maxBytes: Int) async throws -> EventPage
    /// Calls `observer` for the commits other servers sharing this storage make, until
    /// ``close()``: a server wakes its waiting pulls with it (its own pushes it wakes itself).
    /// The default does nothing, for a storage no other server shares.
    func observeCommits(_ observer: @escaping @Sendable (CommitNotice) -> Void) async
    /// Finishes what is under way and lets go of files and connections (at shutdown).
    func close() async

    // MARK: Devices (see ``DeviceRecord``)

    /// Lets a request of `device` of `tenant` through, recording it as seen now; `false`
    /// (and nothing recorded) when an operator revoked the device.
    func admit(device: String, of tenant: String) async throws -> Bool
    /// Records how far `device` of `tenant` pushed (the tenant's last position after its push)
    /// or pulled (the last position its pull reached); positions only move forward.
    func record(device: String, of tenant: String, pushed: UInt64?, pulled: UInt64?) async throws
    /// The tenants the storage holds, sorted (for operators).
    func tenantNames() async throws -> [String]
    /// The devices of `tenant` the storage has seen or an operator revoked, sorted by name.
    func devices(of tenant: String) async throws -> [DeviceRecord]
    /// Revokes (`true`) or reinstates (`false`) `device` of `tenant`; a device never seen may be
    /// revoked before it comes. Every server sharing the storage refuses a revoked device's
    /// next request.
    func setRevoked(_ revoked: Bool, device: String, of tenant: String) async throws
}

extension EventStorage {
    /// Nothing to observe: no other server commits to this storage.
    public func observeCommits(_ observer: @escaping @Sendable (CommitNotice) -> Void) async {}
    /// Every device is let through: this storage keeps no devices.
    public func admit(device: String, of tenant: String) async throws -> Bool { true }
    /// Nothing recorded: this storage keeps no devices.
    public func record(device: String, of tenant: String, pushed: UInt64?, pulled: UInt64?) async throws {}
    /// None listed: this storage keeps no list of tenants.
    public func tenantNames() async throws -> [String] { [] }
    /// None: this storage keeps no devices.
    public func devices(of tenant: String) async throws -> [DeviceRecord] { [] }
    /// Refused: this storage keeps no devices.
    public func setRevoked(_ revoked: Bool, device: String, of tenant: String) async throws {
        throw EventStorageError.unavailable("\(self) keeps no devices")
    }
}

/// A page of a tenant's events in server order.
public struct EventPage: Sendable, Equatable {
    /// The events after the requested position, in order, at most the requested limit and bytes.
    public var events: [RecordedEvent]
    /// The tenant's last position when the page was read (the last event's when there are events).
    public var lastPosition: UInt64

    /// Makes a page from its parts.
    public init(events: [RecordedEvent], lastPosition: UInt64) {
        self.events = events
        self.lastPosition = lastPosition
    }
}

/// Why a storage refused or could not serve a request, as the API answers it.
public enum EventStorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An event the storage refuses (400): its message says which and why.
    case invalidEvent(String)
    /// The storage cannot be reached now (503 with `Retry-After`): the client retries.
    case unavailable(String)

    /// What the 503 for ``unavailable(_:)`` tells the client to wait, in seconds.
    public static let retryAfterSeconds = 1

    public var description: String {
        switch self {
        case .invalidEvent(let why): "invalid event: \(why)"
        case .unavailable(let why): "the server's storage is unavailable: \(why)"
        }
    }
}

extension EventStorageError {
    /// Refuses a batch in which an event's type or origin holds U+0000, as every storage must:
    /// PostgreSQL's `text` cannot hold it, and a storage that kept it would answer otherwise
    /// than one that cannot. (The wire parser refuses such a push first; a stream's NUL is
    /// `EventValidation`'s to refuse; `data` is kept as its bytes, where NUL is an escape.)
    /// - throws: ``invalidEvent(_:)`` naming the event and the member.
    public static func refuseNUL(in events: [ForeignEvent]) throws(EventStorageError) {
        for event in events {
            if event.type.utf8.contains(0) { throw .invalidEvent("event type must not contain NUL (event \(event.id))") }
            if event.origin.utf8.contains(0) { throw .invalidEvent("event origin must not contain NUL (event \(event.id))") }
        }
    }
}

import ChronicleWire
import ChronicleEvents
import Foundation
import Hummingbird

extension SyncAPI {
    /// The longest `wait` a pull may ask for, in seconds: below the 60 s at which proxies
    /// and the server's own idle timeout commonly end a silent connection.
    public static let maxWaitSeconds = 60

    /// What the 503 for a pull beyond ``Limits/maxWaiters`` tells the client to wait, in seconds.
    static let waitersFullRetryAfter = 1

    /// `GET /v1/events?after=&limit=&wait=`: the page after `after`; when it is empty and the
    /// request gives a `wait`, the page once the tenant's head passes `after` or the wait ends.
    ///
    /// While it waits, the request holds no storage connection or transaction: only its place
    /// in ``waiters``, which a push of the tenant (through this server, or through another
    /// sharing the storage: ``EventStorage/observeCommits(_:)``) and shutdown wake.
    func pull<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        let identity = try await authenticate(request)
        let tenant = identity.tenant
        let query = try PullQuery(request.uri.queryParameters, limits: limits)
        let read = { @Sendable [storage, metrics] () async throws -> EventPage in
            try await metrics.storage("events") {
                try await storage.events(of: tenant, after: query.after, limit: query.limit, maxBytes: WirePage.maxDataBytes)
            }
        }
        guard query.wait > .zero else {
            let page = try await read()
            await recordProgress(of: identity, pushed: nil, pulled: page.events.last?.position ?? query.after, logger: context.logger)
            return served(page)
        }
        // Pulls that may wait share one read of the page they ask for: the devices woken by one
        // commit, and their next pulls, ask for the same page at once. (A pull that does not
        // wait reads for itself: on PostgreSQL a commit through another server may not have
        // raised this server's generation yet, and it must see every acknowledged event.)
        let key = SharedPageReads.Key(tenant: tenant, after: query.after, limit: query.limit)
        let shared = { @Sendable [sharedReads, waiters] () async throws -> EventPage in
            try await sharedReads.page(key, generation: waiters.generation, read: read)
        }
        var page = try await shared()
        if page.events.isEmpty {
            page = try await waitForEvents(of: tenant, for: query.wait, read: shared, lastRead: read)
        }
        await recordProgress(of: identity, pushed: nil, pulled: page.events.last?.position ?? query.after, logger: context.logger)
        return served(page)
    }

    /// Counts and encodes a pull's answer.
    private func served(_ page: EventPage) -> Response {
        metrics.served(page.events.count)
        return Self.json(WirePage(events: page.events, lastPosition: page.lastPosition).encode())
    }

    /// Reads (`read`, shared) until a page holds events or the wait is over (its time is up,
    /// the server is shutting down): the last read (`lastRead`, the pull's own) follows the end
    /// of the wait, so an event committed during it is served whatever happened to the
    /// notifications.
    private func waitForEvents(of tenant: String, for wait: Duration, read: () async throws -> EventPage,
                               lastRead: () async throws -> EventPage) async throws -> EventPage {
        guard let ticket = waiters.enter(tenant) else {
            throw APIError(.serviceUnavailable,
                           "too many pulls are waiting on this server (at most \(limits.maxWaiters)); try again later",
                           headers: [.retryAfter: "\(Self.waitersFullRetryAfter)"])
        }
        metrics.startedWaiting()
        defer {
            waiters.leave(ticket)
            metrics.stoppedWaiting()
        }
        let deadline = ContinuousClock.now + wait
        while true {
            // Read after entering: a commit between the first read and the entry is not missed.
            let page = try await read()
            let remaining = deadline - ContinuousClock.now
            guard page.events.isEmpty, remaining > .zero else { return page }
            if await waiters.wait(ticket, for: remaining) == .ended { return try await lastRead() }
        }
    }
}

/// The query of a pull, checked: `after`, `limit` and `wait`, each given at most once, in
/// decimal digits; anything else is a 400 naming what is wrong.
struct PullQuery: Sendable {
    var after: UInt64 = 0
    var limit: Int
    var wait: Duration = .zero

    init(_ query: Parameters, limits: SyncAPI.Limits) throws {
        for (name, _) in query where !["after", "limit", "wait"].contains(name) {
            throw APIError(.badRequest, "unknown query parameter \"\(name)\": a pull takes \"after\", \"limit\" and \"wait\"")
        }
        if let text = try SyncAPI.single("after", in: query) {
            guard let value = SyncAPI.digits(text) else {
                throw APIError(.badRequest, "\"after\" must be a non-negative integer in decimal digits (a server position)")
            }
            after = value
        }
        limit = limits.defaultPullLimit
        if let text = try SyncAPI.single("limit", in: query) {
            guard let value = SyncAPI.digits(text), value >= 1, value <= UInt64(limits.maxPullLimit) else {
                throw APIError(.badRequest, "\"limit\" must be an integer from 1 to \(limits.maxPullLimit) in decimal digits")
            }
            limit = Int(value)
        }
        if let text = try SyncAPI.single("wait", in: query) {
            guard let value = SyncAPI.digits(text), value <= UInt64(SyncAPI.maxWaitSeconds) else {
                throw APIError(.badRequest, "\"wait\" must be a number of seconds from 0 to \(SyncAPI.maxWaitSeconds) in decimal digits")
            }
            wait = min(.seconds(Int64(value)), limits.maxWait)
        }
    }
}

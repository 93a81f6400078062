import NIOCore
import NIOPosix
import Synchronization

/// The pulls waiting on this server for their tenant's next commit (`GET /v1/events?wait=`).
///
/// A pull that found nothing after its position ``enter(_:)``s, reads again (so a commit
/// between its first read and its entry is not missed), then ``wait(_:for:)``s until
/// ``notify(_:)`` names its tenant, the wait ends, or ``close()`` ends every wait at
/// shutdown. A notification only says "read again": whatever happens to notifications, the
/// pull reads the tenant's events once more when its wait ends, so a lost one delays it by at
/// most the wait and never makes it skip an event.
///
/// ```swift
/// let waiters = TenantWaiters(capacity: 10_000)
/// guard let ticket = waiters.enter("acme") else { throw tooManyWaiters }
/// defer { waiters.leave(ticket) }
/// let outcome = await waiters.wait(ticket, for: .seconds(25))   // .notified or .ended
/// ```
///
/// A waiter holds no storage connection or transaction: an entry here, a timer, and its
/// request's suspended task. A waiting connection costs the server about 35 KiB in all
/// (1,000 of them measured, release build: `tools/bench live`), so ``capacity`` bounds what
/// waiting pulls may hold.
public final class TenantWaiters: Sendable {
    /// How a wait ended.
    public enum Outcome: Sendable, Equatable {
        /// The tenant committed events (or may have: read again).
        case notified
        /// The time ran out, the server is shutting down, or the task was cancelled.
        case ended
    }

    /// A pull's place among the waiters, from ``enter(_:)`` until ``leave(_:)``.
    public struct Ticket: Sendable, Hashable {
        let id: UInt64
    }

    private struct Waiter {
        var tenant: String
        /// Notified while not suspended: the next wait returns at once.
        var notified = false
        /// The current wait's time ran out before it suspended.
        var expired = false
        var continuation: CheckedContinuation<Outcome, Never>?
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var byTenant: [String: Set<UInt64>] = [:]
        var nextID: UInt64 = 0
        var closed = false
        /// Raised by every notification, before it wakes anyone (``generation``).
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The most pulls that may wait at once; ``enter(_:)`` refuses more.
    public let capacity: Int

    /// Makes an empty set of waiters that takes at most `capacity` at once.
    public init(capacity: Int) {
        self.capacity = capacity
    }

    /// How many pulls wait now.
    public var count: Int { state.withLock { $0.waiters.count } }

    /// How many notifications there have been, of any tenant: a read that began at the current
    /// generation began after every notification so far, so it sees every commit they told of.
    public var generation: UInt64 { state.withLock { $0.generation } }

    /// Registers a pull of `tenant` about to wait; `nil` when ``capacity`` pulls already wait.
    public func enter(_ tenant: String) -> Ticket? {
        state.withLock { s -> Ticket? in
            guard s.waiters.count < capacity else { return nil }
            s.nextID &+= 1
            s.waiters[s.nextID] = Waiter(tenant: tenant)
            s.byTenant[tenant, default: []].insert(s.nextID)
            return Ticket(id: s.nextID)
        }
    }

    /// Forgets a pull that no longer waits.
    public func leave(_ ticket: Ticket) {
        let waiter = state.withLock { s -> Waiter? in
            guard let waiter = s.waiters.removeValue(forKey: ticket.id) else { return nil }
            s.byTenant[waiter.tenant]?.remove(ticket.id)
            if s.byTenant[waiter.tenant]?.isEmpty == true { s.byTenant[waiter.tenant] = nil }
            return waiter
        }
        waiter?.continuation?.resume(returning: .ended)
    }

    /// Suspends until `ticket`'s tenant is notified (since its entry or its last wait), for at
    /// most `duration`; ends at once after ``close()`` or when the task is cancelled.
    ///
    /// The time is kept by a timer of NIO's event loops, not a task sleeping beside the wait:
    /// a task per waiter would cost more memory than the wait itself.
    public func wait(_ ticket: Ticket, for duration: Duration) async -> Outcome {
        state.withLock { $0.waiters[ticket.id]?.expired = false }
        let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: TimeAmount(duration)) { [self] in
            let continuation = state.withLock { s -> CheckedContinuation<Outcome, Never>? in
                s.waiters[ticket.id]?.expired = true
                defer { s.waiters[ticket.id]?.continuation = nil }
                return s.waiters[ticket.id]?.continuation
            }
            continuation?.resume(returning: .ended)
        }
        defer { timer.cancel() }
        return await suspend(ticket)
    }

    /// Wakes the waiters of `tenant`: it has committed events.
    public func notify(_ tenant: String) {
        let woken = state.withLock { s -> [CheckedContinuation<Outcome, Never>] in
            s.generation &+= 1
            guard let ids = s.byTenant[tenant] else { return [] }
            return ids.compactMap { id in Self.take(id, in: &s) }
        }
        for continuation in woken { continuation.resume(returning: .notified) }
    }

    /// Wakes every waiter, of every tenant (notifications may have been lost: all read again).
    public func notifyAll() {
        let woken = state.withLock { s -> [CheckedContinuation<Outcome, Never>] in
            s.generation &+= 1
            return s.waiters.keys.compactMap { id in Self.take(id, in: &s) }
        }
        for continuation in woken { continuation.resume(returning: .notified) }
    }

    /// Ends every wait now and every later one at once (graceful shutdown): each pull answers
    /// what it has.
    public func close() {
        let ended = state.withLock { s -> [CheckedContinuation<Outcome, Never>] in
            s.closed = true
            return s.waiters.keys.compactMap { id in
                defer { s.waiters[id]?.continuation = nil }
                return s.waiters[id]?.continuation
            }
        }
        for continuation in ended { continuation.resume(returning: .ended) }
    }

    /// A notification for waiter `id`: its continuation to resume, or the flag set for its next wait.
    private static func take(_ id: UInt64, in s: inout State) -> CheckedContinuation<Outcome, Never>? {
        guard let continuation = s.waiters[id]?.continuation else {
            s.waiters[id]?.notified = true
            return nil
        }
        s.waiters[id]?.continuation = nil
        s.waiters[id]?.notified = false
        return continuation
    }

    private func suspend(_ ticket: Ticket) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let now = state.withLock { s -> Outcome? in
                    guard !s.closed, !Task.isCancelled, let waiter = s.waiters[ticket.id], !waiter.expired else { return .ended }
                    if waiter.notified {
                        s.waiters[ticket.id]?.notified = false
                        return .notified
                    }
                    s.waiters[ticket.id]?.continuation = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            // Runs after the task is marked cancelled: a suspension not registered yet sees it.
            let continuation = state.withLock { s -> CheckedContinuation<Outcome, Never>? in
                defer { s.waiters[ticket.id]?.continuation = nil }
                return s.waiters[ticket.id]?.continuation
            }
            continuation?.resume(returning: .ended)
        }
    }
}

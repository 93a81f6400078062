import Foundation
import Synchronization

/// What wakes a waiting ``SyncEngine``: new appends, the app, the network coming back, the
/// server having new events.
///
/// A wake nobody waits for is remembered until a wait that accepts it, so a `syncNow()`
/// that lands while a batch is in flight is not lost.
final class SyncWaker: Sendable {
    enum Reason: Hashable, Sendable {
        case append
        case manual
        case network
        /// A pull waiting on the server found events past the cursor.
        case remote
    }

    private struct Waiter {
        var id: UInt64
        var accepting: Set<Reason>
        var continuation: CheckedContinuation<Reason?, Never>
    }

    private struct State {
        var pending: Set<Reason> = []
        var waiter: Waiter?
        var nextID: UInt64 = 0
        /// Waits whose timeout or cancellation fired before they were registered.
        var expired: Set<UInt64> = []
    }

    private let state = Mutex(State())

    func wake(_ reason: Reason) {
        let waiter = state.withLock { s -> Waiter? in
            if let waiter = s.waiter, waiter.accepting.contains(reason) {
                s.waiter = nil
                return waiter
            }
            s.pending.insert(reason)
            return nil
        }
        waiter?.continuation.resume(returning: reason)
    }

    /// Forgets wakes that have been acted on.
    func clear(_ reasons: Set<Reason>) {
        state.withLock { $0.pending.subtract(reasons) }
    }

    /// Returns the first accepted reason (pending or new), or `nil` once `timeout` passed
    /// (measured by `sleep`) or the task is cancelled.
    func wait(accepting: Set<Reason>, timeout: Duration?,
              sleep: @escaping @Sendable (Duration) async throws -> Void) async -> Reason? {
        let id = state.withLock { s -> UInt64 in s.nextID &+= 1; return s.nextID }
        let timer = timeout.map { timeout in
            Task { [weak self] in
                do { try await sleep(timeout) } catch { return }
                if Task.isCancelled { return }
                self?.expire(id)
            }
        }
        defer {
            timer?.cancel()
            state.withLock { _ = $0.expired.remove(id) }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Reason?, Never>) in
                let immediate = state.withLock { s -> Reason?? in
                    if let reason = s.pending.first(where: accepting.contains) {
                        s.pending.remove(reason)
                        return .some(reason)
                    }
                    if s.expired.remove(id) != nil || Task.isCancelled { return .some(nil) }
                    s.waiter = Waiter(id: id, accepting: accepting, continuation: continuation)
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            expire(id)
        }
    }

    private func expire(_ id: UInt64) {
        let waiter = state.withLock { s -> Waiter? in
            if let waiter = s.waiter, waiter.id == id {
                s.waiter = nil
                return waiter
            }
            s.expired.insert(id)
            return nil
        }
        waiter?.continuation.resume(returning: nil)
    }
}

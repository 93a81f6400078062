import Foundation
import Synchronization

/// Wakes tasks waiting for the log to grow.
///
/// Appends made by this process publish at once; appends made by another process
/// are noticed because a waiter also gives up after a short interval and re-reads
/// the log. The signal is only a hint: readers always re-read LMDB.
final class HeadSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextTicket: UInt64 = 0
    }
    private let state = Mutex(State())

    /// The current generation; pass it to ``wait(after:timeout:)``.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Wakes every waiter.
    func publish() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.generation &+= 1
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns after the next publish following `generation`, after `timeout`, or on cancellation.
    func wait(after generation: UInt64, timeout: Duration) async {
        let ticket = state.withLock { s -> UInt64 in s.nextTicket &+= 1; return s.nextTicket }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.resume(ticket)
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.generation != generation || Task.isCancelled { return true }
                    s.waiters[ticket] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            resume(ticket)
        }
    }

    private func resume(_ ticket: UInt64) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: ticket) }
        waiter?.resume()
    }
}

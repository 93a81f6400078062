import Foundation

/// The run loop's ear on the server: a pull that waits there for events (`wait=`).
extension SyncEngine {
    /// Asks the server, again and again, for one event past the pull cursor, each request
    /// waiting up to `configuration.pullWait` for it; when one is there, wakes the run loop
    /// (``SyncWaker/Reason/remote``), which pulls and stores as usual, and asks again once the
    /// cursor has passed it. Runs beside the run loop, which pushes meanwhile: this request
    /// holds no lock and stores nothing.
    ///
    /// Returns when cancelled, or after a permanent failure (a server that does not take
    /// `wait` answers 400): the run loop then pulls by `configuration.pullInterval`.
    func watchServer() async {
        var seen = state.pulledPosition
        var failures = 0
        var updates = statusUpdates().makeAsyncIterator()
        while !Task.isCancelled {
            let cursor = (try? store.load().pulledPosition) ?? state.pulledPosition
            let after = max(seen, cursor)
            switch await client.pull(after: after, limit: 1, wait: configuration.pullWait) {
            case .answered(let page):
                failures = 0
                guard let last = page.events.last?.position else { continue }
                seen = last
                waker.wake(.remote)
                // Asking again before the run loop has pulled past it would answer at once.
                while let status = await updates.next(), status.pulledPosition < last {}
            case let .failed(error, retryAfter):
                if Task.isCancelled { return }
                guard error.isRetryable else {
                    logger.notice("waiting on the server failed for good; pulling at intervals", metadata: ["error": "\(error)"])
                    serverWaits = false
                    waker.wake(.remote)
                    return
                }
                failures += 1
                try? await sleep(configuration.retry.delay(forAttempt: failures, retryAfter: retryAfter))
            }
        }
    }
}

import Synchronization

/// The subscribers of ``ModelStatesFollower/changes()``.
final class ChangeObservers: Sendable {
    private struct State {
        var next = 0
        var continuations: [Int: AsyncStream<ReadModelChange>.Continuation] = [:]
    }
    private let state = Mutex(State())

    /// Whether anyone listens (changes are only described when someone does).
    var isActive: Bool { state.withLock { !$0.continuations.isEmpty } }

    func stream() -> AsyncStream<ReadModelChange> {
        let (stream, continuation) = AsyncStream<ReadModelChange>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { s -> Int in
            s.next += 1
            s.continuations[s.next] = continuation
            return s.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    func yield(_ changes: [ReadModelChange]) {
        guard !changes.isEmpty else { return }
        let continuations = state.withLock { Array($0.continuations.values) }
        for continuation in continuations {
            for change in changes { continuation.yield(change) }
        }
    }

    func finishAll() {
        let continuations = state.withLock { s -> [AsyncStream<ReadModelChange>.Continuation] in
            defer { s.continuations.removeAll() }
            return Array(s.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}

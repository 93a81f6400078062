import Foundation

struct DeadlineExceeded: Error {}

/// Runs `body`, cancelling it after `timeout`: a whole-request deadline on top of
/// URLSession's idle timeout, so a server that trickles bytes cannot hold a push forever.
func withDeadline<T: Sendable>(_ timeout: Duration,
                               _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        guard let value = first else { throw DeadlineExceeded() }
        return value
    }
}

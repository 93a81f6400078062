/// The guard around a wait that could hang: the test fails instead.
public struct TimedOut: Error, CustomStringConvertible {
    public let what: String
    public let limit: Duration
    public var description: String { "\(what) did not finish within \(limit)" }
}

/// Runs `body`; if it has not finished after `limit`, cancels it and throws ``TimedOut``.
///
/// The limit is a hang guard only, far above the expected time: no test asserts speed.
public func withTimeout<T: Sendable>(_ limit: Duration, _ what: String,
                              _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimedOut(what: what, limit: limit)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw TimedOut(what: what, limit: limit) }
        return first
    }
}

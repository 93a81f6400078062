import Foundation

/// How a failed push is retried (SPEC §5): attempt n waits `min(maximum, base × 2^(n-1))`,
/// a uniformly random part of it with ``Jitter/full``, exactly that with ``Jitter/none``.
///
/// ```swift
/// let policy = RetryPolicy(base: .milliseconds(500), maximum: .seconds(60), jitter: .none)
/// policy.bound(forAttempt: 3)   // 2 s
/// ```
public struct RetryPolicy: Sendable, Hashable {
    /// The wait after the first failure.
    public var base: Duration
    /// No wait is longer, whatever the attempt or the server's `Retry-After`.
    public var maximum: Duration
    /// Whether a wait is the whole bound or a random part of it.
    public var jitter: Jitter
    /// Consecutive failures after which ``SyncEngine/push()`` gives up; `nil` never gives up.
    public var maxAttempts: Int?

    /// Makes a policy; by default waits start at 0.5 s, double up to 60 s with full jitter, and a push
    /// gives up after 10 consecutive failures.
    public init(base: Duration = .milliseconds(500), maximum: Duration = .seconds(60), jitter: Jitter = .full,
                maxAttempts: Int? = 10) {
        self.base = base
        self.maximum = maximum
        self.jitter = jitter
        self.maxAttempts = maxAttempts
    }

    /// How much of the bound to wait.
    public enum Jitter: String, Sendable, Hashable, CaseIterable {
        /// A uniformly random time between 0 and the bound: many clients coming back online
        /// after an outage do not hit the server in lockstep.
        case full
        /// Exactly the bound: deterministic, for tests and scripts.
        case none
    }

    /// `min(maximum, base × 2^(attempt-1))`, for attempt 1, 2, …; never overflows.
    public func bound(forAttempt attempt: Int) -> Duration {
        var wait = base
        var doublings = max(0, attempt - 1)
        while doublings > 0, (wait < maximum), (wait > .zero) {
            wait = wait * 2
            doublings -= 1
        }
        return min(wait, maximum)
    }

    /// The wait before the next try after failure number `attempt`.
    ///
    /// A server's `Retry-After` replaces the computed wait (jitter included), still capped by ``maximum``.
    public func delay(forAttempt attempt: Int, retryAfter: Duration? = nil) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(forAttempt: attempt, retryAfter: retryAfter, using: &generator)
    }

    /// ``delay(forAttempt:retryAfter:)`` with a given source of randomness.
    public func delay(forAttempt attempt: Int, retryAfter: Duration?,
                      using generator: inout some RandomNumberGenerator) -> Duration {
        if let retryAfter { return min(max(retryAfter, .zero), maximum) }
        let bound = bound(forAttempt: attempt)
        switch jitter {
        case .none:
            return bound
        case .full:
            let fraction = Double.random(in: 0...1, using: &generator)
            return bound * fraction
        }
    }
}

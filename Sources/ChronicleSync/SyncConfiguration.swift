import Foundation

/// Where and how a store pushes its events and pulls everyone's.
///
/// ```swift
/// var configuration = SyncConfiguration(remote: URL(string: "https://sync.example.com")!, token: token)
/// configuration.tokenProvider = SyncTokenProvider { need in try await identity.accessToken(forceRefresh: need == .fresh) }
/// configuration.retry = RetryPolicy(base: .milliseconds(500), maximum: .seconds(60), maxAttempts: nil)
/// ```
public struct SyncConfiguration: Sendable, Hashable {
    /// The server's base URL; batches go to `<remote>/v1/events`.
    public var remote: URL
    /// A fixed bearer token naming this store's tenant on the server (a static token, for
    /// development); ``tokenProvider``, when set, is used instead.
    public var token: String?
    /// Where the engine gets its bearer token, asked again once after a 401 (the app's
    /// identity provider, whose JWTs the server verifies). Wins over ``token``.
    public var tokenProvider: SyncTokenProvider?
    /// The most events in one push.
    public var batchSize: Int
    /// The most events one pull request asks for (the reference server serves up to 10,000).
    public var pullLimit: Int
    /// The most bytes of payload in one request (a batch stops short of it; one event always goes).
    public var maxBatchBytes: Int
    /// How long to wait between failed tries, and after how many a push gives up.
    public var retry: RetryPolicy
    /// How long one request may take, connecting included, before it counts as a timeout.
    public var requestTimeout: Duration
    /// ``SyncEngine/run(stopOnPermanentError:)``: after an append, wait this long for more
    /// before pushing. `.zero` (the default) pushes at once, so another device sees the write
    /// as soon as the server has it; appends made while a push is under way go in the next one.
    public var debounce: Duration
    /// ``SyncEngine/run(stopOnPermanentError:)``: check for unsent events at least this often.
    public var pollInterval: Duration
    /// ``SyncEngine/run(stopOnPermanentError:)``: pull at least this often (`nil`: push only).
    /// With a ``pullWait``, the interval applies only if the server does not take `wait`.
    public var pullInterval: Duration?
    /// ``SyncEngine/run(stopOnPermanentError:)``: how long each pull request waits on the
    /// server for new events (`GET /v1/events?wait=`, whole seconds up to 60), so another
    /// device's write arrives as the server commits it instead of at the next interval;
    /// `.zero` pulls by ``pullInterval`` alone. A one-shot ``SyncEngine/pull()`` never waits.
    public var pullWait: Duration

    /// Makes a configuration for syncing with `remote`; `SyncEngine` checks the settings when it is made with it.
    public init(remote: URL, token: String? = nil, batchSize: Int = 500, pullLimit: Int = 1000, maxBatchBytes: Int = 4 << 20,
                retry: RetryPolicy = RetryPolicy(), requestTimeout: Duration = .seconds(30),
                debounce: Duration = .zero, pollInterval: Duration = .seconds(60),
                pullInterval: Duration? = .seconds(2), pullWait: Duration = .seconds(25)) {
        self.remote = remote
        self.token = token
        self.batchSize = batchSize
        self.pullLimit = pullLimit
        self.maxBatchBytes = maxBatchBytes
        self.retry = retry
        self.requestTimeout = requestTimeout
        self.debounce = debounce
        self.pollInterval = pollInterval
        self.pullInterval = pullInterval
        self.pullWait = pullWait
    }

    /// Makes a configuration whose bearer tokens come from `tokenProvider` (the app's identity
    /// provider), with the same defaults as ``init(remote:token:batchSize:pullLimit:maxBatchBytes:retry:requestTimeout:debounce:pollInterval:pullInterval:pullWait:)``.
    public init(remote: URL, tokenProvider: SyncTokenProvider, batchSize: Int = 500, pullLimit: Int = 1000,
                maxBatchBytes: Int = 4 << 20, retry: RetryPolicy = RetryPolicy(), requestTimeout: Duration = .seconds(30),
                debounce: Duration = .zero, pollInterval: Duration = .seconds(60),
                pullInterval: Duration? = .seconds(2), pullWait: Duration = .seconds(25)) {
        self.init(remote: remote, token: nil, batchSize: batchSize, pullLimit: pullLimit, maxBatchBytes: maxBatchBytes,
                  retry: retry, requestTimeout: requestTimeout, debounce: debounce, pollInterval: pollInterval,
                  pullInterval: pullInterval, pullWait: pullWait)
        self.tokenProvider = tokenProvider
    }

    func validate() throws(SyncError) {
        guard batchSize >= 1 else { throw .invalidRemote("the batch size must be at least 1") }
        guard pullLimit >= 1 else { throw .invalidRemote("the pull limit must be at least 1") }
        guard maxBatchBytes >= 1 else { throw .invalidRemote("the batch byte limit must be at least 1") }
        guard retry.base >= .zero, retry.maximum >= retry.base else {
            throw .invalidRemote("the retry maximum must be at least the retry base")
        }
        if let attempts = retry.maxAttempts, attempts < 1 { throw .invalidRemote("max attempts must be at least 1") }
        guard requestTimeout > .zero else { throw .invalidRemote("the request timeout must be positive") }
        if let pullInterval, pullInterval <= .zero { throw .invalidRemote("the pull interval must be positive") }
        guard pullWait >= .zero, pullWait <= .seconds(60) else { throw .invalidRemote("the pull wait must be from 0 to 60 seconds") }
    }
}

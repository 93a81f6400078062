import Foundation

/// Where a sync engine gets its bearer token: an async closure, asked for the token before
/// the first request and for a fresh one when the server refuses it (401).
///
/// ```swift
/// let provider = SyncTokenProvider { need in
///     // `.fresh` after a 401: the token the app holds was refused (expired, revoked key, …).
///     try await identity.accessToken(forceRefresh: need == .fresh)
/// }
/// let configuration = SyncConfiguration(remote: url, tokenProvider: provider)
/// ```
///
/// On a 401 the engine asks once for a fresh token and sends the request again with it; a
/// second 401 stops the push or pull with the error (a permanent one: see ``SyncError/isRetryable``).
/// An error the closure throws is a retryable failure (``SyncError/credentials(_:)``): the
/// identity provider may be offline.
public struct SyncTokenProvider: Sendable, Hashable {
    /// What the engine asks for.
    public enum Need: Sendable, Hashable {
        /// The token to send: the one the app holds, if it still has one.
        case current
        /// A new token: the server refused the last one.
        case fresh
    }

    private final class Body: Sendable {
        let call: @Sendable (Need) async throws -> String
        let fixed: String?
        init(call: @escaping @Sendable (Need) async throws -> String, fixed: String?) {
            self.call = call
            self.fixed = fixed
        }
    }

    private let body: Body

    /// Makes a provider from a closure (called at most once at a time by each engine).
    public init(_ token: @escaping @Sendable (Need) async throws -> String) {
        body = Body(call: token, fixed: nil)
    }

    /// A provider of one token that never changes (what ``SyncConfiguration/token`` makes).
    public static func fixed(_ token: String) -> SyncTokenProvider {
        SyncTokenProvider(fixed: token)
    }

    private init(fixed token: String) {
        body = Body(call: { _ in token }, fixed: token)
    }

    /// The token, for a fixed provider.
    var fixedToken: String? { body.fixed }

    func callAsFunction(_ need: Need) async throws -> String {
        try await body.call(need)
    }

    public static func == (lhs: SyncTokenProvider, rhs: SyncTokenProvider) -> Bool { lhs.body === rhs.body }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(body)) }
}

/// The token an engine sends, asked of its provider when missing and again after a 401; one
/// question at a time, so that requests refused together cause one refresh.
actor SyncTokenCache {
    let provider: SyncTokenProvider
    private var token: String?
    private var asking: Task<String, any Error>?

    init(provider: SyncTokenProvider) {
        self.provider = provider
    }

    /// The token to send.
    func current() async throws(SyncError) -> String {
        if let token { return token }
        return try await ask(.current)
    }

    /// A fresh token after `refused` was refused; nil when the provider has nothing newer.
    func fresh(after refused: String) async throws(SyncError) -> String? {
        if let token, token != refused { return token }   // another request refreshed it already
        let fresh = try await ask(.fresh)
        return fresh == refused ? nil : fresh
    }

    private func ask(_ need: SyncTokenProvider.Need) async throws(SyncError) -> String {
        let task: Task<String, any Error>
        if let asking {
            task = asking
        } else {
            let provider = provider
            task = Task { try await provider(need) }
            asking = task
        }
        defer { if asking == task { asking = nil } }
        let value: String
        do {
            value = try await task.value
        } catch is CancellationError {
            throw .transport(code: URLError.cancelled.rawValue, message: "cancelled")
        } catch {
            throw .credentials("the token provider failed: \(error)")
        }
        guard Self.isUsable(value) else {
            throw .credentials("the token provider returned an empty token or one with whitespace")
        }
        token = value
        return value
    }

    static func isUsable(_ token: String) -> Bool {
        !token.isEmpty && !token.contains(where: { $0.isWhitespace || $0.isNewline })
    }
}

import Foundation

/// One request of the sync protocol, as the client builds it whatever sends it.
struct HTTPRequest: Sendable {
    var method: String
    var url: URL
    var headers: [(name: String, value: String)]
    var body: Data?
}

/// What came back: any status (the client judges it), the `Retry-After` header and the body.
struct HTTPResponse: Sendable {
    var status: Int
    var retryAfter: String?
    var body: Data
}

/// Sends a request and returns the server's answer, or throws ``SyncError/transport(code:message:)``
/// (codes are `URLError`'s, whatever the stack, so the retry rules read them one way) when
/// none came within `timeout`.
///
/// Two implementations: ``URLSessionTransport`` on Apple platforms (what an app already
/// has, and it can run in the background there) and ``NIOHTTPTransport`` on Linux, where
/// FoundationNetworking's `URLSession` spins a core while it waits for an answer and cannot
/// reuse a connection safely (see docs/BENCHMARKS-HISTORY.md).
protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest, timeout: Duration) async throws(SyncError) -> HTTPResponse
    /// Lets the requests under way finish, then releases what the transport holds.
    func invalidate()
}

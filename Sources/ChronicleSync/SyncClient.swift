import ChronicleWire
import ChronicleLog
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Talks to the store's one remote: sends a batch to `POST /v1/events` and reads a page of
/// `GET /v1/events`, and says what came back in the terms of the retry rules.
///
/// What carries the requests is the platform's ``HTTPTransport``: `URLSession` on Apple
/// platforms (what an app already has, and it can run in the background there),
/// AsyncHTTPClient on Linux.
struct SyncClient: Sendable {
    /// What the server said about a batch (the protocol's push answer).
    typealias Acknowledgement = WireAcknowledgement

    /// The answer to a request, in the terms of the retry rules.
    enum Outcome<Value: Sendable>: Sendable {
        case answered(Value)
        /// The request failed; `retryAfter` is the server's `Retry-After`, when it sent one.
        case failed(SyncError, retryAfter: Duration?)
    }

    let endpoint: URL
    /// The bearer token, from the provider (nil: requests carry none).
    let tokens: SyncTokenCache?
    let requestTimeout: Duration
    let transport: any HTTPTransport

    /// A client sending the one fixed `token`.
    init(remote: URL, token: String?, requestTimeout: Duration, transport: (any HTTPTransport)? = nil) throws(SyncError) {
        try self.init(remote: remote, tokenProvider: token.map(SyncTokenProvider.fixed), requestTimeout: requestTimeout,
                      transport: transport)
    }

    /// A client sending the tokens `tokenProvider` gives, asking it for a fresh one after a 401.
    init(remote: URL, tokenProvider: SyncTokenProvider?, requestTimeout: Duration,
         transport: (any HTTPTransport)? = nil) throws(SyncError) {
        guard let scheme = remote.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidRemote("\(remote.absoluteString) is not an http:// or https:// URL")
        }
        guard let host = remote.host, !host.isEmpty else { throw .invalidRemote("\(remote.absoluteString) has no host") }
        if let token = tokenProvider?.fixedToken, !SyncTokenCache.isUsable(token) {
            throw .invalidRemote("the token must not be empty or contain whitespace")
        }
        self.endpoint = remote.appendingPathComponent("v1").appendingPathComponent("events")
        self.tokens = tokenProvider.map(SyncTokenCache.init(provider:))
        self.requestTimeout = requestTimeout
        self.transport = transport ?? Self.platformTransport(requestTimeout: requestTimeout)
    }

    /// AsyncHTTPClient where it is linked (Linux), else `URLSession`.
    static func platformTransport(requestTimeout: Duration) -> any HTTPTransport {
        #if canImport(AsyncHTTPClient)
        NIOHTTPTransport()
        #else
        URLSessionTransport(requestTimeout: requestTimeout)
        #endif
    }

    /// Posts `body` (a ``WirePush`` of `count` events).
    func push(_ body: Data, count: Int) async -> Outcome<Acknowledgement> {
        return await exchange("POST", endpoint, body: body) { data throws(SyncError) in try Self.acknowledgement(in: data, count: count) }
    }

    /// Reads up to `limit` events after the server position `after`, checked against the
    /// protocol before anything is applied (see ``page(in:after:limit:)``). With a `wait` (whole
    /// seconds, at most 60), an empty page waits that long on the server for events; the
    /// request's timeout grows by as much.
    func pull(after: UInt64, limit: Int, wait: Duration = .zero) async -> Outcome<WirePage> {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "after", value: String(after)), URLQueryItem(name: "limit", value: String(limit))]
        let seconds = min(60, wait.components.seconds)
        if seconds > 0 { components.queryItems?.append(URLQueryItem(name: "wait", value: String(seconds))) }
        return await exchange("GET", components.url!, body: nil, timeout: requestTimeout + .seconds(max(0, seconds))) {
            data throws(SyncError) in
            try Self.page(in: data, after: after, limit: limit)
        }
    }

    private func makeRequest(_ method: String, _ url: URL, body: Data?, token: String?) -> HTTPRequest {
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        return HTTPRequest(method: method, url: url, headers: headers, body: body)
    }

    /// Sends the request and reads a 2xx body with `read`; anything else is a failure. After a
    /// 401 it asks the token provider once for a fresh token and sends the request again with
    /// it (unless the provider has nothing newer); the second answer is final.
    private func exchange<Value: Sendable>(_ method: String, _ url: URL, body: Data?, timeout: Duration? = nil,
                                           read: (Data) throws(SyncError) -> Value) async -> Outcome<Value> {
        var response: HTTPResponse
        do {
            let token = try await tokens?.current()
            response = try await transport.send(makeRequest(method, url, body: body, token: token), timeout: timeout ?? requestTimeout)
            if response.status == 401, let tokens, let token, let fresh = try await tokens.fresh(after: token) {
                response = try await transport.send(makeRequest(method, url, body: body, token: fresh), timeout: timeout ?? requestTimeout)
            }
        } catch {
            return .failed(error, retryAfter: nil)
        }
        guard (200..<300).contains(response.status) else {
            var message = Self.errorMessage(in: response.body)
            if response.status == 401, Self.reason(in: response.body) == "revoked_device" { message = SyncError.revokedPrefix + message }
            return .failed(.http(status: response.status, message: message),
                           retryAfter: RetryAfter.parse(response.retryAfter))
        }
        do {
            return .answered(try read(response.body))
        } catch {
            return .failed(error, retryAfter: nil)
        }
    }

    /// Lets the requests under way finish, then releases what the transport holds.
    func invalidate() {
        transport.invalidate()
    }

    /// What any transport makes of its deadline passing, a cancellation, or an error it does
    /// not know.
    static func transportError(_ error: any Error, url: URL, timeout: Duration) -> SyncError {
        let host = (url.host ?? "the server") + (url.port.map { ":\($0)" } ?? "")
        switch error {
        case let error as SyncError:
            return error
        case is DeadlineExceeded:
            return .transport(code: URLError.timedOut.rawValue, message: "no answer from \(host) within \(timeout.formatted)")
        case is CancellationError:
            return .transport(code: URLError.cancelled.rawValue, message: "cancelled")
        default:
            return .transport(code: URLError.unknown.rawValue, message: "request to \(host) failed: \(error)")
        }
    }

    // MARK: - Reading responses

    /// A 2xx must acknowledge every event of the batch: a proxy's HTML page or another
    /// service's 200 must never advance the acknowledged position.
    static func acknowledgement(in data: Data, count: Int) throws(SyncError) -> Acknowledgement {
        let body: WireAcknowledgement
        do {
            body = try WireEvent.decodeAcknowledgement(data)
        } catch {
            throw .invalidResponse("the body does not acknowledge the batch (\(error.message)): \(snippet(data))")
        }
        guard body.accepted + body.duplicates == count else {
            throw .invalidResponse("\(count) events sent, \(body.accepted) accepted and \(body.duplicates) duplicates acknowledged")
        }
        return body
    }

    /// A page must continue exactly where the client asked: positions strictly increasing,
    /// each above `after`, no more than `limit` of them, and `lastPosition` at least the last
    /// one. A page that breaks this is an error, never half-applied.
    static func page(in data: Data, after: UInt64, limit: Int) throws(SyncError) -> WirePage {
        let page: WirePage
        do {
            page = try WireEvent.decodePage(data)
        } catch {
            throw .invalidResponse("the page is not a valid {\"events\",\"lastPosition\"} body: \(error)")
        }
        guard page.events.count <= limit else {
            throw .invalidResponse("\(page.events.count) events in a page asked for at most \(limit)")
        }
        var previous = after
        for event in page.events {
            guard event.position > previous else {
                throw .invalidResponse("event \(event.id.uuidString.lowercased()) at position \(event.position) does not follow \(previous)")
            }
            previous = event.position
        }
        guard page.lastPosition >= previous else {
            throw .invalidResponse("lastPosition \(page.lastPosition) is before the page's last event at \(previous)")
        }
        return page
    }

    /// The server's `{"error": …}` text, else the start of whatever it sent.
    static func errorMessage(in data: Data) -> String {
        if let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] {
            if let message = object["error"] as? String { return oneLine(message) }
            if let nested = object["error"] as? [String: Any], let message = nested["message"] as? String {
                return oneLine(message)
            }
        }
        return snippet(data)
    }

    /// The `reason` of a refusal (docs/PROTOCOL.md, "Authentication and tenants"), if any.
    static func reason(in data: Data) -> String? {
        ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any])?["reason"] as? String
    }

    static func snippet(_ data: Data) -> String {
        let text = oneLine(String(decoding: data.prefix(200), as: UTF8.self))
        return data.count > 200 ? text + "…" : text
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}

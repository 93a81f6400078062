import ChronicleWire
import EventLog
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Talks to the store's one remote: sends a batch to `POST /v1/events` and reads a page of
/// `GET /v1/events`, and says what came back in the terms of the retry rules.
///
/// It uses `URLSession` (FoundationNetworking on Linux): what an iOS app already has, and it
/// can run in the background there.
struct SyncClient: Sendable {
    /// What the server said about a batch.
    struct Acknowledgement: Sendable, Hashable {
        var accepted: Int
        var duplicates: Int
        var lastPosition: UInt64?
    }

    /// The answer to a request, in the terms of the retry rules.
    enum Outcome<Value: Sendable>: Sendable {
        case answered(Value)
        /// The request failed; `retryAfter` is the server's `Retry-After`, when it sent one.
        case failed(SyncError, retryAfter: Duration?)
    }

    let endpoint: URL
    let token: String?
    let requestTimeout: Duration
    let configuration: URLSessionConfiguration
    #if !canImport(FoundationNetworking)
    let session: URLSession
    #endif

    init(remote: URL, token: String?, requestTimeout: Duration) throws(SyncError) {
        guard let scheme = remote.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .invalidRemote("\(remote.absoluteString) is not an http:// or https:// URL")
        }
        guard let host = remote.host, !host.isEmpty else { throw .invalidRemote("\(remote.absoluteString) has no host") }
        if let token, token.isEmpty || token.contains(where: { $0.isWhitespace || $0.isNewline }) {
            throw .invalidRemote("the token must not be empty or contain whitespace")
        }
        self.endpoint = remote.appendingPathComponent("v1").appendingPathComponent("events")
        self.token = token
        self.requestTimeout = requestTimeout
        let configuration = URLSessionConfiguration.ephemeral
        // A backstop only: `withDeadline` enforces `requestTimeout` to the millisecond.
        // (FoundationNetworking truncates these to whole seconds; 0.3 s would time out at once.)
        configuration.timeoutIntervalForRequest = Self.backstop(requestTimeout)
        configuration.timeoutIntervalForResource = Self.backstop(requestTimeout)
        configuration.httpMaximumConnectionsPerHost = 2
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        self.configuration = configuration
        #if !canImport(FoundationNetworking)
        self.session = URLSession(configuration: configuration)
        #endif
    }

    /// Posts `body` (a ``WirePush`` of `count` events).
    func push(_ body: Data, count: Int) async -> Outcome<Acknowledgement> {
        var request = makeRequest(endpoint)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        return await exchange(request) { data throws(SyncError) in try Self.acknowledgement(in: data, count: count) }
    }

    /// Reads up to `limit` events after the server position `after`, checked against the
    /// protocol before anything is applied (see ``page(in:after:limit:)``).
    func pull(after: UInt64, limit: Int) async -> Outcome<WirePage> {
        var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "after", value: String(after)), URLQueryItem(name: "limit", value: String(limit))]
        var request = makeRequest(components.url!)
        request.httpMethod = "GET"
        return await exchange(request) { data throws(SyncError) in try Self.page(in: data, after: after, limit: limit) }
    }

    private func makeRequest(_ url: URL) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData,
                                 timeoutInterval: Self.backstop(requestTimeout))
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        #if canImport(FoundationNetworking)
        // FoundationNetworking (libcurl) hangs until the timeout when a reused keep-alive
        // connection dies after the body was sent: curl retries on a fresh connection but
        // never re-sends the body. A fresh connection per request avoids it.
        request.setValue("close", forHTTPHeaderField: "Connection")
        #endif
        return request
    }

    /// Sends `request` and reads a 2xx body with `read`; anything else is a failure.
    private func exchange<Value: Sendable>(_ request: URLRequest,
                                           read: (Data) throws(SyncError) -> Value) async -> Outcome<Value> {
        #if canImport(FoundationNetworking)
        // And a session per request: with one session, about 1 request in 500 with
        // `Connection: close` stalled until the timeout, never the first of a session
        // (measured on loopback: 3 of 1,500 requests; 0 of 3,500 with a session each).
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        #endif

        let data: Data, response: URLResponse
        do {
            (data, response) = try await withDeadline(requestTimeout) { [session] in
                try await session.data(for: request)
            }
        } catch let error as URLError {
            return .failed(Self.transportError(error), retryAfter: nil)
        } catch is DeadlineExceeded {
            return .failed(.transport(code: URLError.timedOut.rawValue,
                                      message: "no answer from \(hostDescription) within \(requestTimeout.formatted)"),
                           retryAfter: nil)
        } catch is CancellationError {
            return .failed(.transport(code: URLError.cancelled.rawValue, message: "cancelled"), retryAfter: nil)
        } catch {
            return .failed(.transport(code: URLError.unknown.rawValue, message: "request to \(hostDescription) failed: \(error)"),
                           retryAfter: nil)
        }
        guard let http = response as? HTTPURLResponse else {
            return .failed(.invalidResponse("not an HTTP response"), retryAfter: nil)
        }
        let status = http.statusCode
        guard (200..<300).contains(status) else {
            let retryAfter = RetryAfter.parse(http.value(forHTTPHeaderField: "Retry-After"))
            return .failed(.http(status: status, message: Self.errorMessage(in: data)), retryAfter: retryAfter)
        }
        do {
            return .answered(try read(data))
        } catch {
            return .failed(error, retryAfter: nil)
        }
    }

    /// Lets the requests under way finish, then releases the session.
    func invalidate() {
        #if !canImport(FoundationNetworking)
        session.finishTasksAndInvalidate()
        #endif
    }

    /// URLSession's own timeouts: whole seconds, a second past the deadline.
    static func backstop(_ timeout: Duration) -> TimeInterval {
        timeout.seconds.rounded(.up) + 1
    }

    var hostDescription: String {
        (endpoint.host ?? "the server") + (endpoint.port.map { ":\($0)" } ?? "")
    }

    // MARK: - Reading responses

    /// A 2xx must acknowledge every event of the batch: a proxy's HTML page or another
    /// service's 200 must never advance the acknowledged position.
    static func acknowledgement(in data: Data, count: Int) throws(SyncError) -> Acknowledgement {
        struct Body: Decodable {
            var accepted: Int
            var duplicates: Int
            var lastPosition: UInt64?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: data), body.accepted >= 0, body.duplicates >= 0 else {
            throw .invalidResponse("the body does not acknowledge the batch with \"accepted\" and \"duplicates\" counts: \(snippet(data))")
        }
        guard body.accepted + body.duplicates == count else {
            throw .invalidResponse("\(count) events sent, \(body.accepted) accepted and \(body.duplicates) duplicates acknowledged")
        }
        return Acknowledgement(accepted: body.accepted, duplicates: body.duplicates, lastPosition: body.lastPosition)
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

    static func snippet(_ data: Data) -> String {
        let text = oneLine(String(decoding: data.prefix(200), as: UTF8.self))
        return data.count > 200 ? text + "…" : text
    }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }

    /// Maps a `URLError` to the retry rules, with a message that says what happened.
    static func transportError(_ error: URLError) -> SyncError {
        let host = error.failingURL.map { ($0.host ?? "?") + ($0.port.map { ":\($0)" } ?? "") } ?? "the server"
        let message: String
        switch error.code {
        case .timedOut: message = "request to \(host) timed out"
        case .cannotConnectToHost: message = "cannot connect to \(host)"
        case .cannotFindHost, .dnsLookupFailed: message = "cannot resolve \(host)"
        case .networkConnectionLost: message = "the connection to \(host) was lost before the answer"
        case .notConnectedToInternet: message = "not connected to the internet"
        case .badServerResponse: message = "\(host) sent a malformed or incomplete answer"
        default: message = "request to \(host) failed: \(error.localizedDescription) (URLError \(error.code.rawValue))"
        }
        return .transport(code: error.code.rawValue, message: message)
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// ``HTTPTransport`` on `URLSession`: the transport on Apple platforms.
///
/// It also builds on Linux (FoundationNetworking), where it is not the default: there it
/// opens a session and a connection per request (see ``send(_:timeout:)``), and libcurl spins
/// while it waits for an answer.
final class URLSessionTransport: HTTPTransport {
    private let configuration: URLSessionConfiguration
    #if !canImport(FoundationNetworking)
    private let session: URLSession
    #endif

    /// - parameter requestTimeout: the client's deadline; URLSession's own timeouts are set a
    ///   little past it as a backstop (``SyncClient`` enforces the deadline itself).
    init(requestTimeout: Duration) {
        let configuration = URLSessionConfiguration.ephemeral
        // FoundationNetworking truncates these to whole seconds; 0.3 s would time out at once.
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

    func send(_ request: HTTPRequest, timeout: Duration) async throws(SyncError) -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData,
                                    timeoutInterval: Self.backstop(timeout))
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        #if canImport(FoundationNetworking)
        // FoundationNetworking (libcurl) hangs until the timeout when a reused keep-alive
        // connection dies after the body was sent: curl retries on a fresh connection but
        // never re-sends the body. A fresh connection per request avoids it.
        urlRequest.setValue("close", forHTTPHeaderField: "Connection")
        // And a session per request: with one session, about 1 request in 500 with
        // `Connection: close` stalled until the timeout, never the first of a session
        // (measured on loopback: 3 of 1,500 requests; 0 of 3,500 with a session each).
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        #endif
        let data: Data, response: URLResponse
        do {
            (data, response) = try await withDeadline(timeout) { [session, urlRequest] in
                #if canImport(FoundationNetworking)
                try await Self.data(session, for: urlRequest)
                #else
                try await session.data(for: urlRequest)
                #endif
            }
        } catch let error as URLError {
            throw Self.transportError(error)
        } catch {
            throw SyncClient.transportError(error, url: request.url, timeout: timeout)
        }
        guard let http = response as? HTTPURLResponse else { throw .invalidResponse("not an HTTP response") }
        return HTTPResponse(status: http.statusCode, retryAfter: http.value(forHTTPHeaderField: "Retry-After"), body: data)
    }

    func invalidate() {
        #if !canImport(FoundationNetworking)
        session.finishTasksAndInvalidate()
        #endif
    }

    #if canImport(FoundationNetworking)
    /// `session.data(for:)` without FoundationNetworking's cancellation deadlock: its handler
    /// cancels the request synchronously on the session's queue while the Swift runtime holds
    /// the cancelled task's status lock, and the session's queue, finishing the same request at
    /// that moment, waits for that lock to resume the caller. Both wait for ever (a test run hung
    /// so when a deadline fell as a request failed). Here the cancellation is handed to another
    /// queue and returns at once; the request then ends with `cancelled` (or its own outcome).
    static func data(_ session: URLSession, for request: URLRequest) async throws -> (Data, URLResponse) {
        let cancellation = RequestCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let data, let response {
                        continuation.resume(returning: (data, response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                cancellation.started(task)
                task.resume()
            }
        } onCancel: {
            cancellation.cancel()
        }
    }
    #endif

    /// URLSession's own timeouts: whole seconds, a second past the deadline.
    static func backstop(_ timeout: Duration) -> TimeInterval {
        timeout.seconds.rounded(.up) + 1
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

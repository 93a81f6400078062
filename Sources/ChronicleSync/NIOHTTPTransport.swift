#if canImport(AsyncHTTPClient)
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// ``HTTPTransport`` on AsyncHTTPClient (SwiftNIO): the transport on Linux.
///
/// FoundationNetworking's `URLSession` spins a core while it waits for an answer (a request
/// answered after 3 s cost the waiting process 3.08 s of CPU), and its libcurl cannot reuse a
/// keep-alive connection safely after a body was sent, so it needed a session and a
/// connection per request. Here connections are kept alive and reused, and waiting costs
/// nothing.
///
/// All clients of a process share one `HTTPClient` and its connection pool (per host and
/// port), made once and never shut down, on NIO's shared event loops.
final class NIOHTTPTransport: HTTPTransport {
    /// Fails a connection that cannot be made at once (the engine's retry rules pace the next
    /// try), instead of AsyncHTTPClient's default of trying again until the deadline.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The most a response body may hold: a full page of events is far below it.
    static let maxBodyBytes = 256 << 20

    func send(_ request: HTTPRequest, timeout: Duration) async throws(SyncError) -> HTTPResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let nanoseconds = Int64(min(timeout.seconds, 1e9) * 1e9)
        do {
            // The deadline covers the answer's head and body alike.
            return try await withDeadline(timeout) { [outgoing] in
                let response = try await Self.client.execute(outgoing, deadline: .now() + .nanoseconds(nanoseconds))
                let body = try await response.body.collect(upTo: Self.maxBodyBytes)
                return HTTPResponse(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
                                    body: Data(body.readableBytesView))
            }
        } catch {
            throw Self.transportError(error, url: request.url, timeout: timeout)
        }
    }

    func invalidate() {}

    /// Maps AsyncHTTPClient's and NIO's errors to the retry rules, under `URLError`'s codes.
    static func transportError(_ error: any Error, url: URL, timeout: Duration) -> SyncError {
        let host = (url.host ?? "the server") + (url.port.map { ":\($0)" } ?? "")
        switch error {
        case let failure as HTTPClientError where failure == .deadlineExceeded || failure == .readTimeout
            || failure == .writeTimeout || failure == .getConnectionFromPoolTimeout:
            return .transport(code: URLError.timedOut.rawValue, message: "no answer from \(host) within \(timeout.formatted)")
        case let failure as HTTPClientError where failure == .connectTimeout:
            return .transport(code: URLError.cannotConnectToHost.rawValue, message: "cannot connect to \(host) (timed out)")
        case let failure as HTTPClientError where failure == .remoteConnectionClosed:
            return .transport(code: URLError.networkConnectionLost.rawValue,
                              message: "the connection to \(host) was lost before the answer")
        case let failure as HTTPClientError where failure == .redirectLimitReached || failure == .redirectCycleDetected:
            return .transport(code: URLError.httpTooManyRedirects.rawValue, message: "\(host) redirects in a loop")
        case let failure as HTTPClientError where failure == .invalidURL || failure == .emptyHost:
            return .transport(code: URLError.badURL.rawValue, message: "\(url.absoluteString) cannot be requested")
        case let failure as NIOConnectionError where failure.connectionErrors.isEmpty:
            return .transport(code: URLError.cannotFindHost.rawValue, message: "cannot resolve \(host)")
        case is NIOConnectionError, is ChannelError:
            return .transport(code: URLError.cannotConnectToHost.rawValue, message: "cannot connect to \(host)")
        case let failure as IOError:
            return .transport(code: URLError.cannotConnectToHost.rawValue, message: "cannot connect to \(host): \(failure.description)")
        case is HTTPParserError:
            return .transport(code: URLError.badServerResponse.rawValue, message: "\(host) sent a malformed or incomplete answer")
        default:
            return SyncClient.transportError(error, url: url, timeout: timeout)
        }
    }
}
#endif

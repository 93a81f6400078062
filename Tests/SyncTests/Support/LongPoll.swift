import AsyncHTTPClient
import ChronicleWire
import Foundation
import NIOCore

/// Long polls (`GET /v1/events?…&wait=`), hundreds at once if need be, each on a connection
/// of its own: AsyncHTTPClient waits without spinning a core (FoundationNetworking's
/// `URLSession` does) and, unlike the shared client, does not queue requests beyond 8
/// connections a host.
enum LongPoll {
    /// One process-wide client, never shut down (as the sync client's own).
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 1000)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// What a pull was answered.
    struct Answer: Sendable {
        var status: Int
        var retryAfter: String?
        var body: String

        /// The page, for a 200.
        func page() throws -> WirePage { try WireEvent.decodePage(Data(body.utf8)) }
        /// The positions of the page's events.
        func positions() throws -> [UInt64] { try page().events.map(\.position) }
    }

    /// `GET <base>/v1/events?after=&wait=` (and any `extra` query) with `token`; a hang guard
    /// of `wait` plus a minute.
    static func pull(_ base: URL, token: String, after: UInt64, wait: Int, extra: String = "") async throws -> Answer {
        var request = HTTPClientRequest(url: base.absoluteString + "/v1/events?after=\(after)&wait=\(wait)" + extra)
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        let response = try await client.execute(request, timeout: .seconds(Int64(wait) + 60))
        let body = try await response.body.collect(upTo: 16 << 20)
        return Answer(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"),
                      body: String(buffer: body))
    }
}

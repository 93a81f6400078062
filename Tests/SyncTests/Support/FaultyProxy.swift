import ChronicleTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import Logging
import ServiceLifecycle
import Synchronization

/// A real HTTP proxy on a loopback ephemeral port in front of a real reference server
/// (``TestServer``): it forwards `POST /v1/events`, `GET /v1/events?…` and `GET /healthz`,
/// and a seeded generator decides, request by request, whether the network misbehaves.
///
/// The same seed and the same sequence of requests play the same faults, so a failing
/// randomized run replays exactly. ``ProxyFaults/enabled`` switches faults off (for a final
/// "sync until quiet" phase); a probability of 0 makes it a plain proxy.
final class FaultyProxy: Sendable {
    /// What the proxy does with one push.
    enum PushFault: String, Sendable, CaseIterable {
        /// Forward and answer the server's answer.
        case pass
        /// Answer 503 (with `Retry-After: 0`) without forwarding: nothing is stored.
        case unavailable
        /// Forward (the server stores the batch), then close the connection without answering:
        /// a lost acknowledgement.
        case dropAfterForwarding
        /// Forward twice (a duplicated push) and answer the second answer.
        case duplicate
        /// Wait a little (up to a quarter second), then forward: a slow network.
        case delay
    }

    /// What the proxy does with one pull.
    enum PullFault: String, Sendable, CaseIterable {
        case pass
        /// Answer 503 (with `Retry-After: 0`) without forwarding.
        case unavailable
        /// Forward, then close the connection without answering.
        case dropAfterForwarding
        /// Forward asking for half the events the client asked for: a page cut short, which
        /// the client takes for the end of the pull (the next pull goes on from its cursor).
        case shortPage
        /// Wait a little (up to a quarter second), then forward.
        case delay
    }

    let faults: ProxyFaults
    let upstream: URL
    let group: ServiceGroup
    let task: Task<Void, any Error>
    let port: Int

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts a proxy in front of `upstream`; each request is faulted with `probability`,
    /// the fault chosen by a generator seeded with `seed`.
    ///
    /// With several `upstreams` (server processes on one database), requests go to them in
    /// turn, as behind a load balancer.
    static func start(upstream: URL, seed: UInt64, probability: Double) async throws -> FaultyProxy {
        try await start(upstreams: [upstream], seed: seed, probability: probability)
    }

    static func start(upstreams: [URL], seed: UInt64, probability: Double) async throws -> FaultyProxy {
        let upstream = upstreams[0]
        let faults = ProxyFaults(seed: seed, probability: probability)
        let router = Router(context: ProxyContext.self)
        let forwarder = Forwarder(upstreams: upstreams)
        router.post("v1/events") { request, context in
            try await Self.push(request, context: context, faults: faults, forwarder: forwarder)
        }
        router.get("v1/events") { request, context in
            try await Self.pull(request, context: context, faults: faults, forwarder: forwarder)
        }
        router.get("healthz") { request, _ in
            try await forwarder.forward(request, body: nil).response
        }
        let port = PortBox()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in port.resolve(channel.localAddress?.port ?? 0) },
                              logger: Quiet.logger)
        let group = ServiceGroup(services: [app], logger: Quiet.logger)
        let task = Task { try await group.run() }
        return FaultyProxy(faults: faults, upstream: upstream, group: group, task: task, port: await port.value)
    }

    private init(faults: ProxyFaults, upstream: URL, group: ServiceGroup, task: Task<Void, any Error>, port: Int) {
        self.faults = faults
        self.upstream = upstream
        self.group = group
        self.task = task
        self.port = port
    }

    /// Stops the proxy (the server behind it is the caller's to stop).
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    private static func push(_ request: Request, context: ProxyContext, faults: ProxyFaults,
                             forwarder: Forwarder) async throws -> Response {
        let body = try await request.body.collect(upTo: 64 << 20)
        switch faults.nextPush() {
        case .pass:
            return try await forwarder.forward(request, body: body).response
        case .unavailable:
            return unavailable()
        case .dropAfterForwarding:
            _ = try await forwarder.forward(request, body: body)
            try await context.closeConnection()
            throw CancellationError()
        case .duplicate:
            _ = try await forwarder.forward(request, body: body)
            return try await forwarder.forward(request, body: body).response
        case .delay:
            try await Task.sleep(for: faults.delay())
            return try await forwarder.forward(request, body: body).response
        }
    }

    private static func pull(_ request: Request, context: ProxyContext, faults: ProxyFaults,
                             forwarder: Forwarder) async throws -> Response {
        switch faults.nextPull() {
        case .pass:
            return try await forwarder.forward(request, body: nil).response
        case .unavailable:
            return unavailable()
        case .dropAfterForwarding:
            _ = try await forwarder.forward(request, body: nil)
            try await context.closeConnection()
            throw CancellationError()
        case .shortPage:
            return try await forwarder.forward(request, body: nil, halvingLimit: true).response
        case .delay:
            try await Task.sleep(for: faults.delay())
            return try await forwarder.forward(request, body: nil).response
        }
    }

    private static func unavailable() -> Response {
        Response(status: .serviceUnavailable, headers: [.contentType: "application/json", .retryAfter: "0"],
                 body: .init(byteBuffer: ByteBuffer(string: #"{"error":"injected by the proxy"}"#)))
    }
}

/// The proxy's request context: it keeps the channel, so a fault can close the connection.
struct ProxyContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let closeConnection: @Sendable () async throws -> Void

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        let channel = source.channel
        self.closeConnection = { try await channel.close() }
    }
}

/// Sends a request on to the real server, keeping what the protocol depends on: method,
/// path and query, `Authorization`, `Content-Type`, `Accept` and the body; and brings back
/// the status, `Content-Type`, `Retry-After` and the body.
struct Forwarder: Sendable {
    let upstreams: [URL]
    /// The turn of the next request (a class: the forwarder is copied into each route).
    private final class Turn: Sendable {
        let count = Mutex(0)
    }
    private let next = Turn()

    init(upstream: URL) { self.init(upstreams: [upstream]) }

    init(upstreams: [URL]) { self.upstreams = upstreams }

    /// The upstream of the next request (in turn).
    var upstream: URL {
        upstreams[next.count.withLock { index in defer { index += 1 }; return index % upstreams.count }]
    }

    struct Answer: Sendable {
        var status: Int
        var contentType: String?
        var retryAfter: String?
        var body: Data

        var response: Response {
            var headers = HTTPFields()
            if let contentType { headers[.contentType] = contentType }
            if let retryAfter { headers[.retryAfter] = retryAfter }
            return Response(status: .init(code: status), headers: headers,
                            body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }

    /// Forwards `request`; with `halvingLimit`, a pull asks for half its `limit` (at least 1).
    func forward(_ request: Request, body: ByteBuffer?, halvingLimit: Bool = false) async throws -> Answer {
        var target = request.uri.path
        if let query = request.uri.query, !query.isEmpty {
            let parts = query.split(separator: "&").map { part -> String in
                guard halvingLimit, part.hasPrefix("limit="), let limit = Int(part.dropFirst("limit=".count)) else { return String(part) }
                return "limit=\(max(1, limit / 2))"
            }
            target += "?" + parts.joined(separator: "&")
        }
        guard let url = URL(string: upstream.absoluteString.trimmingSuffix("/") + target) else {
            throw HTTPError(.badRequest, message: "cannot forward \(target)")
        }
        var forwarded = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: 30)
        forwarded.httpMethod = request.method.rawValue
        if let value = request.headers[.authorization] { forwarded.setValue(value, forHTTPHeaderField: "Authorization") }
        if let value = request.headers[.contentType] { forwarded.setValue(value, forHTTPHeaderField: "Content-Type") }
        if let value = request.headers[.accept] { forwarded.setValue(value, forHTTPHeaderField: "Accept") }
        // As the sync client does on Linux: a fresh connection (and session) per request,
        // since libcurl can stall on a reused keep-alive connection.
        forwarded.setValue("close", forHTTPHeaderField: "Connection")
        if let body { forwarded.httpBody = Data(body.readableBytesView) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(for: forwarded)
        } catch {
            throw HTTPError(.badGateway, message: "the server behind the proxy did not answer: \(error)")
        }
        guard let http = response as? HTTPURLResponse else { throw HTTPError(.badGateway, message: "not an HTTP answer") }
        return Answer(status: http.statusCode, contentType: http.value(forHTTPHeaderField: "Content-Type"),
                      retryAfter: http.value(forHTTPHeaderField: "Retry-After"), body: data)
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

/// The proxy's seeded fault plan, shared by the connections it serves.
final class ProxyFaults: Sendable {
    private struct State {
        var random: SeededGenerator
        var probability: Double
        var enabled = true
        /// Every fault played (not the passes), in order: "push#3 duplicate".
        var played: [String] = []
        var pushes = 0
        var pulls = 0
    }

    private let state: Mutex<State>

    init(seed: UInt64, probability: Double) {
        state = Mutex(State(random: SeededGenerator(seed: seed), probability: probability))
    }

    /// Whether requests may be faulted at all (off: every request passes, and the generator
    /// is not drawn from).
    var enabled: Bool {
        get { state.withLock { $0.enabled } }
        set { state.withLock { $0.enabled = newValue } }
    }

    /// The chance that a request is faulted, 0…1.
    var probability: Double {
        get { state.withLock { $0.probability } }
        set { state.withLock { $0.probability = newValue } }
    }

    /// The faults played so far, in order.
    var played: [String] { state.withLock { $0.played } }

    /// How many pushes and pulls arrived.
    var counts: (pushes: Int, pulls: Int) { state.withLock { ($0.pushes, $0.pulls) } }

    func nextPush() -> FaultyProxy.PushFault {
        state.withLock { s in
            s.pushes += 1
            let fault = Self.draw(&s, from: FaultyProxy.PushFault.allCases.filter { $0 != .pass }) ?? .pass
            if fault != .pass { s.played.append("push#\(s.pushes) \(fault.rawValue)") }
            return fault
        }
    }

    func nextPull() -> FaultyProxy.PullFault {
        state.withLock { s in
            s.pulls += 1
            let fault = Self.draw(&s, from: FaultyProxy.PullFault.allCases.filter { $0 != .pass }) ?? .pass
            if fault != .pass { s.played.append("pull#\(s.pulls) \(fault.rawValue)") }
            return fault
        }
    }

    /// How long a `delay` fault waits: up to a quarter second, drawn from the seed.
    func delay() -> Duration {
        state.withLock { s in .milliseconds(Int(s.random.next() % 250)) }
    }

    /// A fault from `faults` with the state's probability, else `nil`.
    private static func draw<F>(_ s: inout State, from faults: [F]) -> F? {
        guard s.enabled, s.probability > 0 else { return nil }
        let roll = Double(s.random.next() >> 11) / Double(1 << 53)
        guard roll < s.probability else { return nil }
        return faults[Int(s.random.next() % UInt64(faults.count))]
    }
}


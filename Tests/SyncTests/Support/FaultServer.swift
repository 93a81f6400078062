import ChronicleTestSupport
import ChronicleWire
import ChronicleLog
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import ChronicleServer
import ChronicleServerLMDB
import Synchronization

/// A Hummingbird app that puts a scripted fault middleware in front of the reference
/// server's handlers (``SyncAPI``): the faults are real HTTP behaviour on a real socket.
final class FaultServer: Sendable {
    /// What to do with one `POST /v1/events`, in order; requests past the script pass through.
    enum Fault: Sendable {
        /// Let this one through.
        case pass
        /// Answer with this status (and `Retry-After`) without storing anything.
        case status(Int, retryAfter: String? = nil)
        /// Store the batch, then close the connection without answering (a lost acknowledgement).
        case dropAfterStoring
        /// Store the batch, then hold the answer until the next push arrives (slower than the client's timeout).
        case holdUntilNextRequest
        /// Store the batch, then hold the answer until ``releaseAll()`` (the client is killed meanwhile).
        case holdUntilReleased
    }

    /// What to do with one `GET /v1/events`, in order; requests past the script pass through.
    enum PullFault: Sendable {
        /// Answer with this status (and `Retry-After`).
        case status(Int, retryAfter: String? = nil)
        /// Answer 200 with this body instead of the server's page.
        case body(String)
    }

    let script: FaultScript
    let pullScript: PullScript
    let api: SyncAPI
    let group: ServiceGroup
    let task: Task<Void, any Error>
    let port: Int
    let data: TemporaryFolder

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    var http: HTTP { HTTP(base: url) }

    static func start(token: String, faults: [Fault], pullFaults: [PullFault] = []) async throws -> FaultServer {
        let data = try TemporaryFolder("fault-server")
        var tokens = TokenTable()
        try tokens.add(token: token)
        let storage = LMDBEventStorage(dataDirectory: data.path, options: .init(noSync: true))
        try await storage.prepare(tokens: tokens)
        let api = SyncAPI(storage: storage)
        let script = FaultScript(faults)
        let pullScript = PullScript(pullFaults)
        let router = Router(context: FaultContext.self)
        router.add(middleware: FaultMiddleware(script: script, pullScript: pullScript))
        api.install(on: router)
        let port = PortBox()
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                              onServerRunning: { channel in port.resolve(channel.localAddress?.port ?? 0) },
                              logger: Quiet.logger)
        let group = ServiceGroup(services: [app], logger: Quiet.logger)
        let task = Task { try await group.run() }
        return FaultServer(script: script, pullScript: pullScript, api: api, group: group, task: task,
                           port: await port.value, data: data)
    }

    private init(script: FaultScript, pullScript: PullScript, api: SyncAPI, group: ServiceGroup, task: Task<Void, any Error>,
                 port: Int, data: TemporaryFolder) {
        self.script = script
        self.pullScript = pullScript
        self.api = api
        self.group = group
        self.task = task
        self.port = port
        self.data = data
    }

    func stop() async throws {
        script.releaseAll()
        api.waiters.close()   // as SyncServer does on a graceful shutdown: waiting pulls answer now
        await group.triggerGracefulShutdown()
        try await task.value
        await api.storage.close()
        data.remove()
    }
}

/// The request context of the fault server: it keeps the channel, so a fault can close it.
struct FaultContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// Closes the request's connection.
    let closeConnection: @Sendable () async throws -> Void

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        let channel = source.channel
        self.closeConnection = { try await channel.close() }
    }
}

/// The faults still to play and what each push carried.
final class FaultScript: Sendable {
    private struct State {
        var faults: [FaultServer.Fault]
        var pushes: [[UUID]] = []
        var pushWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var releaseWaiters: [CheckedContinuation<Void, Never>] = []
        var released = false
        var holdingWaiters: [CheckedContinuation<Void, Never>] = []
        var holding = false
    }
    private let state: Mutex<State>

    init(_ faults: [FaultServer.Fault]) { state = Mutex(State(faults: faults)) }

    /// The event ids of every push received, in order (faulted ones included).
    var pushes: [[UUID]] { state.withLock { $0.pushes } }

    /// Records a push; returns the fault to play, if any, and how many pushes arrived so far.
    func receive(_ ids: [UUID]) -> (fault: FaultServer.Fault?, count: Int) {
        let (fault, count, waiters) = state.withLock { s -> (FaultServer.Fault?, Int, [CheckedContinuation<Void, Never>]) in
            s.pushes.append(ids)
            let ready = s.pushWaiters.filter { s.pushes.count >= $0.count }.map(\.continuation)
            s.pushWaiters.removeAll { s.pushes.count >= $0.count }
            return (s.faults.isEmpty ? nil : s.faults.removeFirst(), s.pushes.count, ready)
        }
        for waiter in waiters { waiter.resume() }
        return (fault, count)
    }

    /// Adds faults to play after the current ones.
    func add(_ faults: [FaultServer.Fault]) { state.withLock { $0.faults += faults } }

    /// Returns once `count` pushes arrived (or on ``releaseAll()``).
    func waitForPushes(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { s -> Bool in
                if s.pushes.count >= count || s.released { return true }
                s.pushWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    func waitForRelease() async {
        let holders = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.holding = true
            defer { s.holdingWaiters.removeAll() }
            return s.holdingWaiters
        }
        for holder in holders { holder.resume() }
        await withCheckedContinuation { continuation in
            let now = state.withLock { s -> Bool in
                if s.released { return true }
                s.releaseWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Returns once a request is held by ``FaultServer/Fault/holdUntilReleased``.
    func waitUntilHolding() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { s -> Bool in
                if s.holding { return true }
                s.holdingWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets every held request answer (and any later one pass at once).
    func releaseAll() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.released = true
            defer { s.releaseWaiters.removeAll(); s.pushWaiters.removeAll() }
            return s.releaseWaiters + s.pushWaiters.map(\.continuation)
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// The pull faults still to play, and how many pulls arrived.
final class PullScript: Sendable {
    private let state: Mutex<(faults: [FaultServer.PullFault], pulls: Int)>

    init(_ faults: [FaultServer.PullFault]) { state = Mutex((faults, 0)) }

    /// How many `GET /v1/events` arrived (faulted ones included).
    var pulls: Int { state.withLock { $0.pulls } }

    func receive() -> FaultServer.PullFault? {
        state.withLock { s in
            s.pulls += 1
            return s.faults.isEmpty ? nil : s.faults.removeFirst()
        }
    }
}

/// Plays the script on `POST /v1/events` and the pull script on `GET /v1/events`;
/// everything else passes through.
struct FaultMiddleware: RouterMiddleware {
    let script: FaultScript
    let pullScript: PullScript

    func handle(_ request: Request, context: FaultContext,
                next: (Request, FaultContext) async throws -> Response) async throws -> Response {
        if request.method == .get, request.uri.path == "/v1/events" {
            switch pullScript.receive() {
            case nil:
                return try await next(request, context)
            case let .status(status, retryAfter):
                var headers: HTTPFields = [.contentType: "application/json"]
                if let retryAfter { headers[.retryAfter] = retryAfter }
                return Response(status: .init(code: status), headers: headers,
                                body: .init(byteBuffer: ByteBuffer(string: #"{"error":"injected \#(status)"}"#)))
            case let .body(text):
                return Response(status: .ok, headers: [.contentType: "application/json"],
                                body: .init(byteBuffer: ByteBuffer(string: text)))
            }
        }
        guard request.method == .post, request.uri.path == "/v1/events" else { return try await next(request, context) }
        var request = request
        let body = try await request.collectBody(upTo: 64 << 20)
        let ids = (try? body.withUnsafeReadableBytes { try WireEvent.decodePush($0) })?.events.map(\.id) ?? []
        let (fault, count) = script.receive(ids)
        switch fault {
        case nil, .pass:
            return try await next(request, context)
        case let .status(status, retryAfter):
            var headers: HTTPFields = [.contentType: "application/json"]
            if let retryAfter { headers[.retryAfter] = retryAfter }
            return Response(status: .init(code: status), headers: headers,
                            body: .init(byteBuffer: ByteBuffer(string: #"{"error":"injected \#(status)"}"#)))
        case .dropAfterStoring:
            _ = try await next(request, context)
            try await context.closeConnection()
            throw CancellationError()
        case .holdUntilNextRequest:
            let response = try await next(request, context)
            await script.waitForPushes(count + 1)
            return response
        case .holdUntilReleased:
            let response = try await next(request, context)
            await script.waitForRelease()
            return response
        }
    }
}

/// The port the fault server bound.
final class PortBox: Sendable {
    private let state = Mutex<(port: Int?, waiters: [CheckedContinuation<Int, Never>])>((nil, []))

    func resolve(_ port: Int) {
        let waiters = state.withLock { s -> [CheckedContinuation<Int, Never>] in
            s.port = port
            defer { s.waiters.removeAll() }
            return s.waiters
        }
        for waiter in waiters { waiter.resume(returning: port) }
    }

    var value: Int {
        get async {
            await withCheckedContinuation { continuation in
                let port = state.withLock { s -> Int? in
                    if let port = s.port { return port }
                    s.waiters.append(continuation)
                    return nil
                }
                if let port { continuation.resume(returning: port) }
            }
        }
    }
}

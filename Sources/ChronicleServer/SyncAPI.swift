import ChronicleWire
import ChronicleEvents
import Foundation
import Hummingbird
import Logging

/// The HTTP endpoints of the sync protocol (SPEC §5, `docs/PROTOCOL.md`), ready to mount on
/// any Hummingbird router.
///
/// ```swift
/// let storage = LMDBEventStorage(dataDirectory: "/var/lib/chronicle")
/// try await storage.prepare(tokens: tokens)
/// let api = SyncAPI(storage: storage)
/// let router = Router()
/// api.install(on: router)
/// ```
///
/// Requests carry a bearer token: a static one (``TokenTable``), or a JWT its ``JWTAuthentication``
/// verifies; a refused one gets 401 with the class of the refusal (``AuthenticationRefusal``).
///
/// - `POST /v1/events`: stores a batch, each event id once per tenant, all or nothing.
/// - `GET /v1/events?after=&limit=&wait=`: the tenant's events in server order; with `wait`,
///   an empty page waits up to that many seconds for the tenant's next commit.
/// - `GET /healthz`: 200.
/// - `GET /openapi.yaml`: this API as OpenAPI 3.0.
/// - `GET /metrics`: what the server counts, in Prometheus' text format (``ServerMetrics``).
public struct SyncAPI: Sendable {
    /// Request limits.
    public struct Limits: Sendable, Hashable {
        /// The largest request body accepted (413 above).
        public var maxBodyBytes: Int
        /// The largest `limit` a pull may ask for.
        public var maxPullLimit: Int
        /// The `limit` of a pull that gives none.
        public var defaultPullLimit: Int
        /// The longest a pull waits for events (`wait` up to ``SyncAPI/maxWaitSeconds`` is
        /// taken; a longer one than this ends sooner, as the protocol allows).
        public var maxWait: Duration
        /// The most pulls that may wait at once on this server (503 with `Retry-After` above).
        public var maxWaiters: Int

        /// Makes limits; by default bodies of up to 8 MiB, pulls of up to 10,000 events (1000 when
        /// the request gives no `limit`) waiting up to 60 s, and 10,000 pulls waiting at once.
        public init(maxBodyBytes: Int = 8 << 20, maxPullLimit: Int = 10_000, defaultPullLimit: Int = 1000,
                    maxWait: Duration = .seconds(SyncAPI.maxWaitSeconds), maxWaiters: Int = 10_000) {
            self.maxBodyBytes = maxBodyBytes
            self.maxPullLimit = maxPullLimit
            self.defaultPullLimit = defaultPullLimit
            self.maxWait = maxWait
            self.maxWaiters = maxWaiters
        }
    }

    /// Where tokens and events are kept (see ``EventStorage``).
    public let storage: any EventStorage
    /// The request limits the endpoints enforce.
    public let limits: Limits
    /// What the endpoints count, served at `GET /metrics`.
    public let metrics: ServerMetrics
    /// The pulls waiting for their tenant's next commit (`wait`), woken after each push.
    public let waiters: TenantWaiters
    /// The reads that woken pulls asking for the same page share.
    let sharedReads = SharedPageReads()
    /// Verifies JWT bearer tokens, when the API takes them.
    let verifier: JWTVerifier?

    /// Makes the API over `storage`; it serves nothing until ``install(on:)`` adds it to a router.
    /// With `jwt`, it also accepts JWTs signed by its keys (see ``JWTAuthentication``).
    public init(storage: any EventStorage, limits: Limits = Limits(), metrics: ServerMetrics = ServerMetrics(),
                jwt: JWTAuthentication? = nil) {
        self.storage = storage
        self.limits = limits
        self.metrics = metrics
        self.waiters = TenantWaiters(capacity: limits.maxWaiters)
        self.verifier = jwt.flatMap { $0.isEmpty ? nil : JWTVerifier($0) }
    }

    /// The paths the API serves and the methods each takes (any other method gets 405).
    static let routes: [(path: String, methods: [HTTPRequest.Method])] = [
        ("healthz", [.get, .head]), ("openapi.yaml", [.get, .head]), ("metrics", [.get]), ("v1/events", [.get, .post]),
    ]

    /// Adds the metrics, the request log, the error middleware (JSON errors), the 405s for a
    /// method a path does not take, and the routes to `router`.
    public func install<Context: RequestContext>(on router: Router<Context>) {
        router.add(middleware: MetricsMiddleware<Context>(metrics: metrics))
        router.add(middleware: RequestLogMiddleware<Context>())
        router.add(middleware: APIErrorMiddleware<Context>())
        router.add(middleware: AllowedMethodsMiddleware<Context>(routes: Self.routes))
        router.get("healthz") { _, _ in Self.json("{\"status\":\"ok\"}") }
        router.head("healthz") { _, _ in Self.json("{\"status\":\"ok\"}") }
        router.get("openapi.yaml") { _, _ in Self.openAPIDocument() }
        router.head("openapi.yaml") { _, _ in Self.openAPIDocument() }
        router.get("metrics") { _, _ in metrics.exposition() }
        router.post("v1/events") { request, context in try await push(request, context: context) }
        router.get("v1/events") { request, context in try await pull(request, context: context) }
    }

    // MARK: - Push

    func push<Context: RequestContext>(_ request: Request, context: Context) async throws -> Response {
        let identity = try await authenticate(request)
        let tenant = identity.tenant
        guard Self.isJSON(request.headers[.contentType]) else {
            throw APIError(.unsupportedMediaType, "Content-Type must be application/json (charset, if given, utf-8)")
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limits.maxBodyBytes {
            throw tooLarge()
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limits.maxBodyBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw tooLarge()
        } catch {
            // The client closed the connection mid-body, or was cut off by the request timeout:
            // not a server failure. 408, should the connection still take an answer.
            throw APIError(.requestTimeout, "the request body did not arrive whole: the client went away or was too slow", cause: error)
        }
        let batch: WirePush
        do {
            batch = try body.withUnsafeReadableBytes { bytes in try WireEvent.decodePush(bytes) }
        } catch let error as WireEventError {
            throw APIError(.badRequest, error.message)
        }
        let result = try await metrics.storage("append") { try await storage.append(batch.events, for: tenant) }
        metrics.appended(accepted: result.accepted, duplicates: result.duplicates)
        if result.accepted > 0 { waiters.notify(tenant) }
        await recordProgress(of: identity, pushed: result.head, pulled: nil, logger: context.logger)
        context.logger.info("batch stored", metadata: [
            "tenant": "\(tenant)", "device": "\(identity.device ?? batch.device)", "events": "\(batch.events.count)",
            "accepted": "\(result.accepted)", "duplicates": "\(result.duplicates)", "lastPosition": "\(result.head)",
        ])
        return Self.json(WireAcknowledgement(accepted: result.accepted, duplicates: result.duplicates, lastPosition: result.head).encode())
    }

    private func tooLarge() -> APIError {
        // The rest of the body is not read: the connection ends after the answer (see ConnectionEndingHandler).
        APIError(.contentTooLarge, "request body is larger than \(limits.maxBodyBytes) bytes: send smaller batches",
                 headers: [.connection: "close"])
    }

    /// Records how far the request's device pushed or pulled; a failure is logged, never the request's.
    func recordProgress(of identity: RequestIdentity, pushed: UInt64?, pulled: UInt64?, logger: Logger) async {
        guard let device = identity.device else { return }
        do {
            try await metrics.storage("device") {
                try await storage.record(device: device, of: identity.tenant, pushed: pushed, pulled: pulled)
            }
        } catch {
            logger.warning("device progress not recorded", metadata: ["tenant": "\(identity.tenant)", "error": "\(error)"])
        }
    }

    // MARK: - Helpers

    /// The longest bearer token read, in bytes: a longer one is refused unread (``AuthenticationRefusal/tooLarge``).
    public static let maxTokenBytes = 8192

    /// Who the request's bearer token names, or a 401 naming the class of the refusal
    /// (counted in `/metrics` and logged). With JWT authentication on, a token of three
    /// dot-separated parts is verified as a JWT; any other is looked up as a static token.
    func authenticate(_ request: Request) async throws -> RequestIdentity {
        do {
            return try await identify(request)
        } catch let refusal as AuthenticationRefusal {
            metrics.refused(refusal)
            throw refusal.apiError
        }
    }

    private func identify(_ request: Request) async throws -> RequestIdentity {
        guard let header = request.headers[.authorization] else { throw AuthenticationRefusal.missing }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw AuthenticationRefusal.malformed }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard token.utf8.count <= Self.maxTokenBytes else { throw AuthenticationRefusal.tooLarge }
        guard !token.isEmpty else { throw AuthenticationRefusal.malformed }
        if let verifier, JWTVerifier.isJWTShaped(Substring(token)) {
            let identity = try await metrics.verifying { try await verifier.verify(token) }
            if let device = identity.device {
                let admitted = try await metrics.storage("device") { try await storage.admit(device: device, of: identity.tenant) }
                guard admitted else { throw AuthenticationRefusal.revokedDevice }
            }
            return identity
        }
        guard let tenant = try await metrics.storage("authenticate", { try await storage.tenant(forToken: token) }) else {
            throw AuthenticationRefusal.unknownToken
        }
        return RequestIdentity(tenant: tenant)
    }

    /// `application/json`, with no parameter but `charset=utf-8` (any case, quoted or not):
    /// a body in another charset would be read as UTF-8, so it is refused.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let parts = contentType.split(separator: ";", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard parts.first == "application/json" else { return false }
        return parts.dropFirst().allSatisfy { parameter in
            parameter == "charset=utf-8" || parameter == "charset=\"utf-8\""
        }
    }

    /// The one value of query parameter `name` (nil when absent); 400 when it is repeated.
    static func single(_ name: String, in query: Parameters) throws -> String? {
        let values = query[values: Substring(name)]
        guard values.count <= 1 else { throw APIError(.badRequest, "query parameter \"\(name)\" is given \(values.count) times") }
        return values.first.map(String.init)
    }

    /// A decimal number written with ASCII digits only (no sign, no space), at most
    /// 9223372036854775807 (a JSON int64, as the OpenAPI document says: no position is larger).
    static func digits(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let value = UInt64(text), value <= UInt64(Int64.max) else { return nil }
        return value
    }

    /// This protocol as OpenAPI 3.0 (docs/openapi.yaml), embedded in the server at build time.
    static func openAPIDocument() -> Response {
        Response(status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_yaml)))
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ data: Data, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

import Foundation
import Hummingbird
import Metrics
import Prometheus

/// What the server counts, for operators, in Prometheus' text format at `GET /metrics`:
///
/// - `chronicle_http_requests_total{route,method,status}` and
///   `chronicle_http_request_duration_seconds{route,method}`: every request, the HTTP layer's
///   own refusals (431, malformed) under `route="unrouted"`;
/// - `chronicle_events_appended_total`, `chronicle_events_duplicate_total`,
///   `chronicle_events_served_total`: events stored by pushes, already known, sent in pages;
/// - `chronicle_pulls_waiting`: pulls waiting now for their tenant's next commit (`wait=`);
/// - `chronicle_storage_in_flight{operation}` and `chronicle_storage_duration_seconds{operation}`:
///   calls into the storage (`append`, `events`, `authenticate`, `device`) under way and how long they took:
///   with PostgreSQL, how much of the connection pool the server is using;
/// - `chronicle_auth_refusals_total{reason}`: requests refused for their bearer token, by
///   class (``AuthenticationRefusal``: `expired`, `bad_signature`, `unknown_key`, …);
/// - `chronicle_jwt_verify_duration_seconds`: how long verifying a JWT took (accepted or not).
///
/// Recorded through swift-metrics' API against this server's own registry (servers in one
/// process, as in tests, keep apart). No label names a tenant or a token.
public final class ServerMetrics: Sendable {
    /// The registry `GET /metrics` renders.
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// The routes a request is counted under; anything else is `other` (labels stay few).
    static let routes = Set(SyncAPI.routes.map { "/" + $0.path })

    /// Makes the metrics, with a registry of their own.
    public init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        self.registry = registry
        self.factory = factory
    }

    /// Counts one answered request.
    func request(path: String?, method: String, status: Int, duration: Duration) {
        let route = path.map { Self.routes.contains($0) ? $0 : "other" } ?? "unrouted"
        Counter(label: "chronicle_http_requests_total",
                dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory).increment()
        Timer(label: "chronicle_http_request_duration_seconds", dimensions: [("route", route), ("method", method)],
              factory: factory).record(duration: duration)
    }

    /// Counts a push's events.
    func appended(accepted: Int, duplicates: Int) {
        Counter(label: "chronicle_events_appended_total", factory: factory).increment(by: accepted)
        Counter(label: "chronicle_events_duplicate_total", factory: factory).increment(by: duplicates)
    }

    /// Counts a page's events.
    func served(_ count: Int) {
        Counter(label: "chronicle_events_served_total", factory: factory).increment(by: count)
    }

    /// Counts a pull that waits for its tenant's next commit, in `chronicle_pulls_waiting`,
    /// until ``stoppedWaiting()``.
    func startedWaiting() {
        Meter(label: "chronicle_pulls_waiting", factory: factory).increment()
    }

    /// A waiting pull answered (or ended): one less in `chronicle_pulls_waiting`.
    func stoppedWaiting() {
        Meter(label: "chronicle_pulls_waiting", factory: factory).decrement()
    }

    /// Counts a request refused for its bearer token, under its class.
    func refused(_ refusal: AuthenticationRefusal) {
        Counter(label: "chronicle_auth_refusals_total", dimensions: [("reason", refusal.rawValue)], factory: factory).increment()
    }

    /// Runs a JWT's verification, timed.
    func verifying<T>(_ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        defer {
            Timer(label: "chronicle_jwt_verify_duration_seconds", factory: factory).record(duration: ContinuousClock.now - start)
        }
        return try await body()
    }

    /// Runs a call into the storage, counted while it runs and timed.
    func storage<T>(_ operation: String, _ body: () async throws -> T) async rethrows -> T {
        let inFlight = Meter(label: "chronicle_storage_in_flight", dimensions: [("operation", operation)], factory: factory)
        inFlight.increment()
        let start = ContinuousClock.now
        defer {
            inFlight.decrement()
            Timer(label: "chronicle_storage_duration_seconds", dimensions: [("operation", operation)], factory: factory)
                .record(duration: ContinuousClock.now - start)
        }
        return try await body()
    }

    /// The metrics as Prometheus' text exposition format.
    func exposition() -> Response {
        Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }
}

/// Counts each request the router answers (see ``ServerMetrics``).
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        metrics.request(path: request.uri.path, method: request.method.rawValue, status: Int(response.status.code),
                        duration: ContinuousClock.now - start)
        return response
    }
}

import Foundation
import Hummingbird
import Logging

/// One structured log line per request: method, path, status, duration.
public struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let level: Logger.Level

    /// Makes the middleware, logging each request at `level` (debug by default).
    public init(level: Logger.Level = .debug) {
        self.level = level
    }

    /// Passes the request on, then logs its method, path, status and duration in milliseconds;
    /// a request that throws is not logged here.
    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        context.logger.log(level: level, "request", metadata: [
            "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(response.status.code)",
            "ms": "\(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)",
        ])
        return response
    }
}

import Foundation
import Hummingbird
import Logging

/// One structured log line per request: method, path, status, duration.
public struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let level: Logger.Level

    public init(level: Logger.Level = .debug) {
        self.level = level
    }

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

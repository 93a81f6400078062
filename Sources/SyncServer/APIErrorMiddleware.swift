import Foundation
import Hummingbird
import Logging

/// Turns every error a route throws into a JSON error response and logs it: clients always
/// get `{"error": …}`, even for a 404 from the router or a 413 from the body limit.
public struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Makes the middleware.
    public init() {}

    /// Passes the request on; turns any error it throws into an `APIError` response and logs it
    /// (5xx as errors, the rest as notices).
    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = Self.apiError(for: error, request: request)
            let metadata: Logger.Metadata = [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(apiError.status.code)",
                "error": "\(apiError.message)",
            ]
            if apiError.status.code >= 500 {
                context.logger.error("request failed", metadata: metadata.merging(["cause": "\(error)"]) { $1 })
            } else {
                context.logger.notice("request refused", metadata: metadata)
            }
            return try apiError.response(from: request, context: context)
        }
    }

    static func apiError(for error: any Error, request: Request) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case EventStorageError.invalidEvent:
            return APIError(.badRequest, "\(error)")
        case EventStorageError.unavailable:
            return APIError(.serviceUnavailable, "\(error); try again later", headers: [.retryAfter: "\(EventStorageError.retryAfterSeconds)"])
        case let error as HTTPError:
            return APIError(error.status, error.body ?? Self.defaultMessage(error.status, request), headers: error.headers)
        case let error as any HTTPResponseError:
            return APIError(error.status, Self.defaultMessage(error.status, request))
        default:
            return APIError(.internalServerError, "internal server error")
        }
    }

    static func defaultMessage(_ status: HTTPResponse.Status, _ request: Request) -> String {
        switch status {
        case .notFound: "no route for \(request.method) \(request.uri.path)"
        case .contentTooLarge: "request body too large"
        default: status.reasonPhrase.lowercased()
        }
    }
}

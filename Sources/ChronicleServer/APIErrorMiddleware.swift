import Foundation
import Hummingbird
import Logging

/// Turns every error a route throws into a JSON error response and logs it: clients always
/// get `{"error": …}`, even for a 404 from the router or a 413 from the body limit.
///
/// A 4xx message is about the client's own request and says what is wrong with it. A 5xx
/// message is fixed and says only what the client can do (try again later): the server's
/// insides (a database's address, a driver's error, a source file and line) go to the log.
public struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Makes the middleware.
    public init() {}

    /// Passes the request on; turns any error it throws into an `APIError` response and logs it
    /// (5xx as errors, the rest as notices), with its cause.
    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = Self.apiError(for: error, request: request)
            var metadata: Logger.Metadata = [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(apiError.status.code)",
                "error": "\(apiError.message)",
            ]
            if let cause = apiError.cause { metadata["cause"] = "\(String(reflecting: cause))" }
            if let reason = apiError.reason { metadata["reason"] = "\(reason)" }
            if apiError.status.code >= 500 {
                context.logger.error("request failed", metadata: metadata)
            } else {
                context.logger.notice("request refused", metadata: metadata)
            }
            return try apiError.response(from: request, context: context)
        }
    }

    /// What the client is told of the storage being unreachable: all it can act on.
    static var unavailableMessage: String { "the server's storage is unavailable; try again later" }
    /// What the client is told of any other failure of the server's.
    static var internalErrorMessage: String { "internal server error; try again later" }

    static func apiError(for error: any Error, request: Request) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case EventStorageError.invalidEvent:
            return APIError(.badRequest, "\(error)")
        case EventStorageError.unavailable:
            return APIError(.serviceUnavailable, unavailableMessage,
                            headers: [.retryAfter: "\(EventStorageError.retryAfterSeconds)"], cause: error)
        case let error as HTTPError where error.status.code >= 500:
            return APIError(error.status, internalErrorMessage, headers: error.headers, cause: error)
        case let error as HTTPError:
            return APIError(error.status, error.body ?? Self.defaultMessage(error.status, request), headers: error.headers)
        case let error as any HTTPResponseError where error.status.code >= 500:
            return APIError(error.status, internalErrorMessage, cause: error)
        case let error as any HTTPResponseError:
            return APIError(error.status, Self.defaultMessage(error.status, request))
        default:
            return APIError(.internalServerError, internalErrorMessage, cause: error)
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

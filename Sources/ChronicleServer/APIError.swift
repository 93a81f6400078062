import Foundation
import Hummingbird
import JSONText

/// An error response of the sync API: its status and `{"error": "<message>"}` (SPEC §5),
/// with `"reason"` (a refusal's class, such as `expired`) when there is one.
///
/// Handlers throw it; ``APIErrorMiddleware`` turns every other error into one.
public struct APIError: HTTPResponseError, CustomStringConvertible, Sendable {
    public var status: HTTPResponse.Status
    /// What went wrong, sent as the body's `error` member.
    public var message: String
    /// Extra response headers, such as `WWW-Authenticate` or `Retry-After`.
    public var headers: HTTPFields
    /// What the server's log keeps of the failure and the client is not told (a driver's
    /// error, a database's address): ``APIErrorMiddleware`` logs it beside the message.
    public var cause: (any Error)?
    /// The class of the refusal, sent as the body's `reason` member (see ``AuthenticationRefusal``).
    public var reason: String?

    /// Makes an error response with `status`, `message` and any extra `headers`; `cause` goes
    /// to the log only; `reason`, when given, is sent beside the message.
    public init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:], cause: (any Error)? = nil,
                reason: String? = nil) {
        self.status = status
        self.message = message
        self.headers = headers
        self.cause = cause
        self.reason = reason
    }

    public var description: String { "\(status.code) \(message)" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var body = "{\"error\":" + JSONQuoting.quoted(message)
        if let reason { body += ",\"reason\":" + JSONQuoting.quoted(reason) }
        var response = SyncAPI.json(body + "}", status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}

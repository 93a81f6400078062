import Foundation
import Hummingbird

/// An error response of the sync API: its status and `{"error": "<message>"}` (SPEC §5).
///
/// Handlers throw it; ``APIErrorMiddleware`` turns every other error into one.
public struct APIError: HTTPResponseError, CustomStringConvertible, Sendable {
    public var status: HTTPResponse.Status
    /// What went wrong, sent as the body's `error` member.
    public var message: String
    /// Extra response headers, such as `WWW-Authenticate` or `Retry-After`.
    public var headers: HTTPFields

    /// Makes an error response with `status`, `message` and any extra `headers`.
    public init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status.code) \(message)" }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = SyncAPI.json("{\"error\":" + jsonString(message) + "}", status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    static func unauthorized(_ message: String) -> APIError {
        APIError(.unauthorized, message, headers: [.wwwAuthenticate: "Bearer"])
    }
}

/// `text` as a JSON string literal.
func jsonString(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

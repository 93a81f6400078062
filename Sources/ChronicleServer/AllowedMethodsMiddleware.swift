import Foundation
import Hummingbird

/// Answers `405 Method Not Allowed`, with `Allow`, for a path the API serves asked with a
/// method it does not take, whatever the method: `DELETE`, `QUERY`, `PROPFIND` or one made up.
/// A router knows only the methods it was given routes for, and answers any other with 404.
/// A path the API does not serve goes on to the router (404).
struct AllowedMethodsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Each path the API serves, without its slashes' ends, and the methods it takes.
    private let routes: [String: (methods: [HTTPRequest.Method], allow: String)]

    init(routes: [(path: String, methods: [HTTPRequest.Method])]) {
        var table: [String: (methods: [HTTPRequest.Method], allow: String)] = [:]
        for route in routes { table[route.path] = (route.methods, route.methods.map(\.rawValue).joined(separator: ", ")) }
        self.routes = table
    }

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        // The path as the router matches it: empty components (`//healthz/`) do not count.
        let path = request.uri.path.split(separator: "/").joined(separator: "/")
        if let route = routes[path], !route.methods.contains(request.method) {
            throw APIError(.methodNotAllowed, "\(request.method.rawValue) is not allowed on /\(path): use \(route.allow)",
                           headers: [.allow: route.allow])
        }
        return try await next(request, context)
    }
}

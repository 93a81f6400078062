import Foundation

/// Where the server's PostgreSQL database is: parsed from `postgres://user[:password]@host[:port]/database`
/// (`postgresql://` too), shown without its password.
public struct DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    /// The server's host name or address.
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The user to connect as.
    public var user: String
    /// The password; nil to connect without one.
    public var password: String?
    /// The name of the database.
    public var database: String

    /// Makes a location from its parts; unlike ``init(url:)``, it checks nothing.
    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    /// - throws: ``Error`` saying what is missing or wrong.
    public init(url text: String) throws(Error) {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
              ["postgres", "postgresql"].contains(scheme.lowercased()) else {
            throw Error("'\(Self.redacted(text))' is not a postgres:// URL (postgres://user[:password]@host[:port]/database)")
        }
        guard let host = components.host, !host.isEmpty else { throw Error("the database URL names no host") }
        guard let user = components.user, !user.isEmpty else { throw Error("the database URL names no user (postgres://USER@host/database)") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw Error("the database URL names no database (…/DATABASE)") }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw Error("the database URL's port must be from 1 to 65535") }
        self.init(host: host, port: port, user: user, password: components.password, database: database)
    }

    public var description: String {
        "postgres://\(user)\(password == nil ? "" : ":***")@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)"
    }

    /// The text with anything between `://` and `@` hidden (a password must not reach a log).
    private static func redacted(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") else { return text }
        return text[..<scheme.upperBound] + "***" + text[at...]
    }

    /// A database URL that cannot be used.
    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}

import Foundation

/// Why the server cannot start. Each message is one line a person can act on.
public enum SyncServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No token was configured: the server would refuse every request.
    case noTokens
    /// A token is unusable (empty, with whitespace, or given twice).
    case invalidToken(String)
    /// A tenant name is unusable as a folder name.
    case invalidTenant(String)
    /// A line of the tokens file is malformed.
    case tokensFile(path: String, line: Int, reason: String)
    /// The tokens file cannot be read.
    case cannotRead(path: String, reason: String)
    /// A setting is out of range.
    case invalidSetting(String)
    /// A JWT verification key is unusable (its format, its size, a `kid` given twice).
    case invalidKey(String)
    /// Another process already listens on the address.
    case addressInUse(host: String, port: Int)

    public var description: String {
        switch self {
        case .noTokens:
            return "no tokens configured: pass --token T (one tenant), --tokens-file F (lines 'tenant token') or a JWT key (--jwt-hs256-secret-file, --jwt-public-key, --jwt-jwks)"
        case .invalidToken(let why):
            return "invalid token: \(why)"
        case .invalidTenant(let name):
            return "invalid tenant name '\(name)': use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-'"
        case let .tokensFile(path, line, reason):
            return "\(path):\(line): \(reason)"
        case let .cannotRead(path, reason):
            return "cannot read \(path): \(reason)"
        case .invalidSetting(let why):
            return why
        case .invalidKey(let why):
            return "invalid JWT key: \(why)"
        case let .addressInUse(host, port):
            return "port \(port) on \(host) is in use by another process: stop it, or pass another --port (0 picks a free one)"
        }
    }
}

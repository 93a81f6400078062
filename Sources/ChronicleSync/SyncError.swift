import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a push did not go through. Each message is one line a person can act on.
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered with an error status; `message` is its `{"error": …}` text.
    case http(status: Int, message: String)
    /// The request never got an answer: no connection, connection lost, timed out, …
    case transport(code: Int, message: String)
    /// The server answered 2xx with a body that does not acknowledge the batch.
    case invalidResponse(String)
    /// The remote URL cannot be used.
    case invalidRemote(String)
    /// The sync state in the store could not be read or written.
    case storage(String)
    /// ``SyncEngine/run(stopOnPermanentError:)`` was called while it already runs.
    case alreadyRunning
    /// The token provider gave no usable token (it threw, or returned an empty one); retried,
    /// since an identity provider may be offline.
    case credentials(String)

    /// Whether trying again later may succeed (SPEC §5): connection failures, timeouts,
    /// 408, 429, 500, 502, 503 and 504. Everything else stops the push.
    public var isRetryable: Bool {
        switch self {
        case .http(let status, _): SyncError.retryableStatuses.contains(status)
        case .transport(let code, _): !SyncError.permanentTransportCodes.contains(code)
        case .credentials: true
        case .invalidResponse, .invalidRemote, .storage, .alreadyRunning: false
        }
    }

    /// Whether the server refused the request because its operator revoked this device
    /// (a 401 whose `reason` is `revoked_device`).
    public var isDeviceRevoked: Bool {
        if case .http(401, let message) = self { return message.hasPrefix(Self.revokedPrefix) }
        return false
    }

    /// How ``SyncClient`` marks a 401 refusing a revoked device in the message it keeps.
    static let revokedPrefix = "device revoked: "

    /// The HTTP status, when the server answered.
    public var status: Int? {
        if case .http(let status, _) = self { return status }
        return nil
    }

    public var description: String {
        switch self {
        case let .http(status, message):
            let reason = HTTPURLResponse.localizedString(forStatusCode: status)
            return message.isEmpty ? "HTTP \(status) \(reason)" : "HTTP \(status): \(message)"
        case let .transport(_, message):
            return message
        case .invalidResponse(let why):
            return "unexpected response from the server: \(why)"
        case .invalidRemote(let why):
            return "invalid remote: \(why)"
        case .storage(let why):
            return "sync state: \(why)"
        case .alreadyRunning:
            return "this sync engine is already running"
        case .credentials(let why):
            return "no token: \(why)"
        }
    }

    static let retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// `URLError` codes that will not heal by waiting: a bad URL, a refused certificate, a
    /// redirect loop. Unknown codes are retried: for an offline-first app, a wrong "retry"
    /// costs a few requests; a wrong "permanent" stops sync until someone notices.
    static let permanentTransportCodes: Set<Int> = [
        URLError.badURL.rawValue, URLError.unsupportedURL.rawValue, URLError.httpTooManyRedirects.rawValue,
        URLError.redirectToNonExistentLocation.rawValue, URLError.userAuthenticationRequired.rawValue,
        URLError.userCancelledAuthentication.rawValue, URLError.serverCertificateUntrusted.rawValue,
        URLError.serverCertificateHasBadDate.rawValue, URLError.serverCertificateHasUnknownRoot.rawValue,
        URLError.serverCertificateNotYetValid.rawValue, URLError.clientCertificateRejected.rawValue,
        URLError.clientCertificateRequired.rawValue,
        URLError.fileDoesNotExist.rawValue,
    ]
}

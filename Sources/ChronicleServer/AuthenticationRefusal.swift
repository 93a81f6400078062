import Foundation

/// Why the server refused a request's bearer token: a class an operator can count and act
/// on, and a message that tells an attacker nothing they did not send.
///
/// Every refusal is a 401 with `WWW-Authenticate: Bearer error="invalid_token"` (plain
/// `Bearer` when no token was sent) and `{"error": "<message>", "reason": "<class>"}`. The
/// server's log and `chronicle_auth_refusals_total{reason}` count each class.
public enum AuthenticationRefusal: String, Error, Sendable, CaseIterable, CustomStringConvertible {
    /// No `Authorization: Bearer` header.
    case missing
    /// Not a token the server can read: not three parts, a part not base64url, a header
    /// or payload that is not a JSON object.
    case malformed
    /// Longer than ``SyncAPI/maxTokenBytes``.
    case tooLarge = "too_large"
    /// An algorithm the server never accepts (`none`, or one other than HS256, RS256, ES256).
    case unsupportedAlgorithm = "unsupported_algorithm"
    /// An accepted algorithm, but not the one of the key the token names (algorithm confusion).
    case algorithmMismatch = "algorithm_mismatch"
    /// A `kid` the server has no key for, or no `kid` where several keys are configured.
    case unknownKey = "unknown_key"
    /// The signature does not verify with the key.
    case badSignature = "bad_signature"
    /// `exp` is past (beyond the leeway).
    case expired
    /// `nbf` is still ahead (beyond the leeway).
    case notYetValid = "not_yet_valid"
    /// `iat` is ahead (beyond the leeway).
    case issuedInFuture = "issued_in_future"
    /// `iss` is not the configured issuer.
    case wrongIssuer = "wrong_issuer"
    /// `aud` does not name the configured audience.
    case wrongAudience = "wrong_audience"
    /// A claim the server needs is absent: `exp`, or the tenant claim.
    case missingClaim = "missing_claim"
    /// The tenant or device claim is not a usable name.
    case invalidClaim = "invalid_claim"
    /// A static token the server does not know.
    case unknownToken = "unknown_token"
    /// The device was revoked by an operator.
    case revokedDevice = "revoked_device"

    /// The class's name, as sent in `reason` and counted in `/metrics`.
    public var description: String { rawValue }

    /// What the client is told: the class of problem, never which part of a guess was right.
    public var message: String {
        switch self {
        case .missing: "missing bearer token (send Authorization: Bearer <token>)"
        case .malformed: "the bearer token is malformed"
        case .tooLarge: "the bearer token is longer than \(SyncAPI.maxTokenBytes) bytes"
        case .unsupportedAlgorithm: "the token's algorithm is not accepted (HS256, RS256 or ES256)"
        case .algorithmMismatch: "the token's algorithm is not its key's"
        case .unknownKey: "the token names no key the server knows"
        case .badSignature: "the token's signature does not verify"
        case .expired: "the token has expired"
        case .notYetValid: "the token is not valid yet"
        case .issuedInFuture: "the token is issued in the future"
        case .wrongIssuer: "the token's issuer is not accepted"
        case .wrongAudience: "the token is not meant for this server (audience)"
        case .missingClaim: "the token lacks a claim the server needs (exp, or the tenant's)"
        case .invalidClaim: "the token's tenant or device claim is not a usable name"
        case .unknownToken: "unknown token"
        case .revokedDevice: "this device has been revoked; ask the operator to reinstate it"
        }
    }

    /// The 401 the client gets.
    var apiError: APIError {
        let challenge = self == .missing ? "Bearer" : "Bearer error=\"invalid_token\""
        return APIError(.unauthorized, message, headers: [.wwwAuthenticate: challenge], reason: rawValue)
    }
}

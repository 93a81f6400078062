import Foundation
import JWTKit

/// Verifies a JWT bearer token against a ``JWTAuthentication``: the header read first (the
/// algorithm must be the named key's), the signature by jwt-kit, then the claims here, each
/// failure its own ``AuthenticationRefusal``.
final class JWTVerifier: Sendable {
    let settings: JWTAuthentication
    /// jwt-kit's key collections, one per key (so a token can never reach a key it does not
    /// name), built once: jwt-kit's collection is an actor.
    private let collections: Task<[JWTKeyCollection], Never>

    init(_ settings: JWTAuthentication) {
        self.settings = settings
        let keys = settings.keys
        collections = Task {
            var made: [JWTKeyCollection] = []
            for key in keys {
                let collection = JWTKeyCollection()
                switch key.material {
                case .secret(let bytes): await collection.add(hmac: HMACKey(from: bytes), digestAlgorithm: .sha256)
                case .rsa(let rsa): await collection.add(rsa: rsa, digestAlgorithm: .sha256)
                case .ecdsa(let ecdsa): await collection.add(ecdsa: ecdsa)
                }
                made.append(collection)
            }
            return made
        }
    }

    /// The header members the server reads before it checks the signature.
    private struct Header: Decodable {
        var alg: String?
        var kid: String?
        /// Extensions the token says a verifier must understand (RFC 7515 §4.1.11): the server
        /// understands none, so a token listing any is refused.
        var crit: [String]?
    }

    /// Whether `token` is shaped like a JWS (three dot-separated parts): with JWT
    /// authentication on, such a token is verified as a JWT and never looked up as a static one.
    static func isJWTShaped(_ token: Substring) -> Bool {
        token.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: ".") ? 1 : 0) } == 2
    }

    /// The identity `token` proves, or why it proves none.
    func verify(_ token: String, now: Date = Date()) async throws(AuthenticationRefusal) -> RequestIdentity {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else { throw .malformed }
        guard let headerBytes = Self.base64URLDecoded(parts[0]),
              let header = try? JSONDecoder().decode(Header.self, from: headerBytes) else { throw .malformed }
        guard let alg = header.alg, header.crit == nil else { throw .malformed }
        guard let algorithm = JWTAuthentication.Algorithm(rawValue: alg) else { throw .unsupportedAlgorithm }
        let keys = settings.keys
        let index: Int
        if let kid = header.kid {
            guard let found = keys.firstIndex(where: { $0.kid == kid }) else { throw .unknownKey }
            index = found
        } else if keys.count == 1 {
            index = 0
        } else if let unnamed = keys.firstIndex(where: { $0.kid == nil }) {
            index = unnamed
        } else {
            throw .unknownKey
        }
        guard keys[index].algorithm == algorithm else { throw .algorithmMismatch }
        let collection = await collections.value[index]
        let claims: JWTClaimSet
        do {
            claims = try await collection.verify(token, as: JWTClaimSet.self)
        } catch let error as JWTError where error.errorType == .malformedToken {
            throw .malformed
        } catch {
            throw .badSignature
        }
        return try check(claims, now: now)
    }

    /// The claims' verdict, in a fixed order: times, issuer, audience, tenant, device.
    func check(_ claims: JWTClaimSet, now: Date) throws(AuthenticationRefusal) -> RequestIdentity {
        let leeway = Double(settings.leeway.components.seconds)
        let time = now.timeIntervalSince1970
        guard let exp = claims.numbers["exp"] else { throw .missingClaim }
        guard time <= exp + leeway else { throw .expired }
        if let nbf = claims.numbers["nbf"], time + leeway < nbf { throw .notYetValid }
        if let iat = claims.numbers["iat"], time + leeway < iat { throw .issuedInFuture }
        if claims.strings["nbf"] != nil || claims.strings["iat"] != nil || claims.strings["exp"] != nil { throw .malformed }
        if let issuer = settings.issuer, claims.strings["iss"] != issuer { throw .wrongIssuer }
        if let audience = settings.audience {
            let audiences = claims.stringLists["aud"] ?? claims.strings["aud"].map { [$0] } ?? []
            guard audiences.contains(audience) else { throw .wrongAudience }
        }
        guard let tenant = claims.strings[settings.tenantClaim] else { throw .missingClaim }
        guard TokenTable.isValidTenant(tenant) else { throw .invalidClaim }
        var device: String?
        if let claim = settings.deviceClaim, let value = claims.strings[claim] {
            guard JWTAuthentication.isValidDevice(value) else { throw .invalidClaim }
            device = value
        }
        return RequestIdentity(tenant: tenant, device: device)
    }

    /// Base64url without padding, as JWS uses it; nil for anything else.
    static func base64URLDecoded(_ text: Substring) -> Data? {
        guard text.utf8.allSatisfy({ byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

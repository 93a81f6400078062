import Foundation
import JWTKit

extension JWTAuthentication {
    /// An HS256 JWT for development and tests (`chronicle server token`): signed with `secret`,
    /// naming `tenant` in `tenantClaim` and `device` in `deviceClaim`, valid for `lifetime`.
    /// A server given the same secret (`--jwt-hs256-secret-file`) accepts it.
    public static func developmentToken(secret: [UInt8], kid: String? = nil, tenant: String, tenantClaim: String = "sub",
                                        device: String? = nil, deviceClaim: String = "device",
                                        issuer: String? = nil, audience: String? = nil,
                                        lifetime: Duration = .seconds(3600)) async throws -> String {
        var claims = JWTClaimSet()
        let now = Date().timeIntervalSince1970.rounded(.down)
        claims.numbers["iat"] = now
        claims.numbers["exp"] = now + Double(lifetime.components.seconds)
        claims.strings[tenantClaim] = tenant
        if let device { claims.strings[deviceClaim] = device }
        if let issuer { claims.strings["iss"] = issuer }
        if let audience { claims.strings["aud"] = audience }
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: kid.map { JWKIdentifier(string: $0) })
        return try await keys.sign(claims, kid: kid.map { JWKIdentifier(string: $0) })
    }
}

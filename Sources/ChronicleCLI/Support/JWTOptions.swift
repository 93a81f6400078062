import ArgumentParser
import Foundation
import ChronicleServer
/// `chronicle serve`'s JWT flags: the identity provider's keys (read at start, never fetched)
/// and what its tokens' claims must say.
struct JWTOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Accept HS256 JWTs signed with the secret in this file (at least 32 bytes; KID= names its kid). Repeatable.",
                               valueName: "[kid=]file"))
    var jwtHs256SecretFile: [String] = []
    @Option(help: ArgumentHelp("Accept RS256 or ES256 JWTs signed for this PEM public key (RSA or P-256; KID= names its kid). Repeatable.",
                               valueName: "[kid=]file"))
    var jwtPublicKey: [String] = []
    @Option(help: ArgumentHelp("Accept RS256 and ES256 JWTs signed for the keys of this JWKS file, chosen by kid. Repeatable.",
                               valueName: "file"))
    var jwtJwks: [String] = []
    @Option(help: "The iss every JWT must carry (default: any).") var jwtIssuer: String?
    @Option(help: "The value a JWT's aud must be or contain (default: any).") var jwtAudience: String?
    @Option(help: "The JWT claim naming the tenant.") var jwtTenantClaim = "sub"
    @Option(help: "The JWT claim naming the device (recorded per tenant; a revoked one is refused).") var jwtDeviceClaim: String?
    @Option(help: "How far exp, nbf and iat may be off this server's clock, in seconds (0 to 3600).") var jwtLeeway = 60

    var isConfigured: Bool { !(jwtHs256SecretFile.isEmpty && jwtPublicKey.isEmpty && jwtJwks.isEmpty) }

    func validate() throws {
        guard (0...3600).contains(jwtLeeway) else { throw ValidationError("--jwt-leeway must be from 0 to 3600 seconds") }
        if !isConfigured, jwtIssuer != nil || jwtAudience != nil || jwtDeviceClaim != nil || jwtTenantClaim != "sub" {
            throw ValidationError("--jwt-issuer, --jwt-audience and the claim flags need a JWT key (--jwt-hs256-secret-file, --jwt-public-key or --jwt-jwks)")
        }
    }

    /// The configured keys and claims, or nil when no key flag was given.
    func authentication() throws -> JWTAuthentication? {
        guard isConfigured else { return nil }
        var jwt = JWTAuthentication(issuer: jwtIssuer, audience: jwtAudience, tenantClaim: jwtTenantClaim,
                                    deviceClaim: jwtDeviceClaim, leeway: .seconds(jwtLeeway))
        for argument in jwtHs256SecretFile {
            let (kid, path) = Self.split(argument)
            try jwt.loadHS256Secret(file: path, kid: kid)
        }
        for argument in jwtPublicKey {
            let (kid, path) = Self.split(argument)
            try jwt.loadPublicKey(file: path, kid: kid)
        }
        for path in jwtJwks { try jwt.loadJWKS(file: path) }
        return jwt
    }

    /// `kid=path` or `path` (a `=` after a `/` belongs to the path).
    static func split(_ argument: String) -> (kid: String?, path: String) {
        guard let equals = argument.firstIndex(of: "="), !argument[..<equals].contains("/"), equals != argument.startIndex else {
            return (nil, argument)
        }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}

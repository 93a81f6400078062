import Foundation
import JWTKit

/// The identity provider a server trusts: the keys its JWTs are signed with, and what their
/// claims must say. The tenant comes from a claim (`sub` by default), the device from another.
///
/// ```swift
/// var jwt = JWTAuthentication(issuer: "https://id.example.com/", audience: "chronicle-sync")
/// try jwt.addJWKS(json: String(contentsOfFile: "/etc/chronicle/jwks.json", encoding: .utf8))
/// jwt.deviceClaim = "device_id"
/// let configuration = SyncServer.Configuration(port: 8080, tokens: TokenTable(), jwt: jwt)
/// ```
///
/// Keys are given at start (no network fetch): HS256 shared secrets, RSA (RS256) and P-256
/// (ES256) public keys as PEM or as a JWKS. Each key has one algorithm; a token signed with
/// any other is refused (``AuthenticationRefusal/algorithmMismatch``), whatever its header says.
public struct JWTAuthentication: Sendable {
    /// The signature algorithms the server accepts; `none` and every other one are refused.
    public enum Algorithm: String, Sendable, CaseIterable {
        /// HMAC with SHA-256 and a shared secret.
        case hs256 = "HS256"
        /// RSASSA-PKCS1-v1_5 with SHA-256 and an RSA public key (2048 bits or more).
        case rs256 = "RS256"
        /// ECDSA on P-256 with SHA-256.
        case es256 = "ES256"
    }

    /// One verification key: its `kid` (nil: the key for tokens without one), its algorithm,
    /// and what jwt-kit verifies with.
    struct Key: Sendable {
        var kid: String?
        var algorithm: Algorithm
        var material: Material
    }

    /// A key as parsed at configuration time (errors surface at start, not on a request).
    enum Material: Sendable {
        case secret([UInt8])
        case rsa(Insecure.RSA.PublicKey)
        case ecdsa(ES256PublicKey)
    }

    private(set) var keys: [Key] = []

    /// The `iss` every token must carry; nil accepts any.
    public var issuer: String?
    /// The value `aud` must be or contain; nil accepts any.
    public var audience: String?
    /// The claim naming the tenant (`sub` by default); its value must be a tenant name
    /// (1 to 64 letters, digits, `.`, `_`, `-`).
    public var tenantClaim: String
    /// The claim naming the device, if any: the server records each device and an operator
    /// may revoke one. Without it (or without the claim in a token) a request has no device.
    public var deviceClaim: String?
    /// How far `exp`, `nbf` and `iat` may be off the server's clock.
    public var leeway: Duration

    /// Makes a configuration with no key yet; add keys with ``addHS256(secret:kid:)``,
    /// ``addPublicKey(pem:kid:)`` or ``addJWKS(json:)``.
    public init(issuer: String? = nil, audience: String? = nil, tenantClaim: String = "sub", deviceClaim: String? = nil,
                leeway: Duration = .seconds(60)) {
        self.issuer = issuer
        self.audience = audience
        self.tenantClaim = tenantClaim
        self.deviceClaim = deviceClaim
        self.leeway = leeway
    }

    /// `true` until a key is added.
    public var isEmpty: Bool { keys.isEmpty }

    /// The key ids configured (nil for a key without one), for the start-up log.
    public var keyIDs: [String?] { keys.map(\.kid) }

    /// Adds an HS256 secret (at least 32 bytes, as RFC 7518 asks).
    public mutating func addHS256(secret: [UInt8], kid: String? = nil) throws(SyncServerError) {
        guard secret.count >= 32 else { throw .invalidKey("an HS256 secret must be at least 32 bytes, not \(secret.count)") }
        // A public key used as a shared secret is the algorithm-confusion attack's key: refuse it.
        guard !String(decoding: secret.prefix(64), as: UTF8.self).contains("-----BEGIN") else {
            throw .invalidKey("this is a PEM key, not an HS256 secret: give it to --jwt-public-key")
        }
        try add(Key(kid: kid, algorithm: .hs256, material: .secret(secret)))
    }

    /// Adds an RSA (RS256) or P-256 (ES256) public key in PEM (`BEGIN PUBLIC KEY`).
    public mutating func addPublicKey(pem: String, kid: String? = nil) throws(SyncServerError) {
        if let rsa = try? Insecure.RSA.PublicKey(pem: pem) {
            try add(Key(kid: kid, algorithm: .rs256, material: .rsa(rsa)))
        } else if let ecdsa = try? ES256PublicKey(pem: pem) {
            try add(Key(kid: kid, algorithm: .es256, material: .ecdsa(ecdsa)))
        } else {
            throw .invalidKey("not a PEM public key of RSA (2048 bits or more) or of P-256")
        }
    }

    /// Adds every key of a JWKS document (`{"keys": [...]}`): RSA keys as RS256, P-256 keys as
    /// ES256, each with its `kid`. A key whose `alg` says otherwise is refused.
    public mutating func addJWKS(json: String) throws(SyncServerError) {
        let set: JWKS
        do {
            set = try JSONDecoder().decode(JWKS.self, from: Data(json.utf8))
        } catch {
            throw .invalidKey("not a JWKS document ({\"keys\": [...]}): \(error)")
        }
        guard !set.keys.isEmpty else { throw .invalidKey("the JWKS holds no key") }
        for jwk in set.keys {
            let kid = jwk.keyIdentifier?.string
            let name = kid.map { "key '\($0)'" } ?? "a key without kid"
            switch jwk.keyType {
            case .rsa:
                guard jwk.algorithm == nil || jwk.algorithm == .rs256 else { throw .invalidKey("\(name): only RS256 is accepted for RSA keys") }
                guard let modulus = jwk.modulus, let exponent = jwk.exponent,
                      let key = try? Insecure.RSA.PublicKey(modulus: modulus, exponent: exponent) else {
                    throw .invalidKey("\(name): not a usable RSA public key (n, e; 2048 bits or more)")
                }
                try add(Key(kid: kid, algorithm: .rs256, material: .rsa(key)))
            case .ecdsa:
                guard jwk.algorithm == nil || jwk.algorithm == .es256 else { throw .invalidKey("\(name): only ES256 is accepted for EC keys") }
                guard jwk.curve?.rawValue == "P-256", let x = jwk.x, let y = jwk.y,
                      let key = try? ES256PublicKey(parameters: (x: x, y: y)) else {
                    throw .invalidKey("\(name): not a usable P-256 public key (crv P-256, x, y)")
                }
                try add(Key(kid: kid, algorithm: .es256, material: .ecdsa(key)))
            default:
                throw .invalidKey("\(name): key type \(jwk.keyType.rawValue) is not accepted (RSA or EC P-256)")
            }
        }
    }

    /// Reads an HS256 secret from a file (its bytes, a final newline dropped).
    public mutating func loadHS256Secret(file path: String, kid: String? = nil) throws(SyncServerError) {
        var bytes = Array(try Self.read(path))
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        do {
            try addHS256(secret: bytes, kid: kid)
        } catch {
            throw .cannotRead(path: path, reason: error.description)
        }
    }

    /// Reads a PEM public key from a file.
    public mutating func loadPublicKey(file path: String, kid: String? = nil) throws(SyncServerError) {
        do {
            try addPublicKey(pem: String(decoding: try Self.read(path), as: UTF8.self), kid: kid)
        } catch .invalidKey(let why) {
            throw .cannotRead(path: path, reason: why)
        }
    }

    /// Reads a JWKS document from a file.
    public mutating func loadJWKS(file path: String) throws(SyncServerError) {
        do {
            try addJWKS(json: String(decoding: try Self.read(path), as: UTF8.self))
        } catch .invalidKey(let why) {
            throw .cannotRead(path: path, reason: why)
        }
    }

    /// Whether `name` can name a device: 1 to 128 bytes, no control characters (what the server
    /// records and an operator types).
    public static func isValidDevice(_ name: String) -> Bool {
        (1...128).contains(name.utf8.count) && name.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
    }

    /// Checks the claim settings (``SyncServer`` calls it at start).
    func validate() throws(SyncServerError) {
        guard !tenantClaim.isEmpty else { throw .invalidSetting("the JWT tenant claim must not be empty") }
        if let deviceClaim, deviceClaim.isEmpty { throw .invalidSetting("the JWT device claim must not be empty") }
        guard leeway >= .zero, leeway <= .seconds(3600) else { throw .invalidSetting("the JWT leeway must be from 0 to 3600 seconds") }
    }

    private mutating func add(_ key: Key) throws(SyncServerError) {
        if let kid = key.kid, kid.isEmpty { throw .invalidKey("a kid must not be empty") }
        guard !keys.contains(where: { $0.kid == key.kid }) else {
            throw .invalidKey(key.kid.map { "the kid '\($0)' is configured twice" } ?? "two keys without a kid: give each a kid")
        }
        keys.append(key)
    }

    private static func read(_ path: String) throws(SyncServerError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .cannotRead(path: path, reason: (error as NSError).localizedDescription)
        }
    }
}

import ChronicleTestSupport
import Foundation
import ChronicleServer
/// Keys and JWTs made by PyJWT and cryptography (`tools/jwt-mint`, run with the python of
/// `tools/jwt-venv`): an oracle that shares no code with the server's verifier (jwt-kit).
///
/// The keys: an HS256 secret (kid `hs-1`), an RSA and a P-256 key in a JWKS (kids `rsa-1`,
/// `ec-1`) and as PEM (kids `rsa-pem`, `ec-pem`). Tokens say issuer `https://id.test/`,
/// audience `chronicle`, the tenant in `sub` and the device in `device_id`.
struct JWTMint: Sendable {
    let keys: TemporaryFolder
    let python: URL

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static var minter: String { root.appendingPathComponent("tools/jwt-mint").path }

    /// Makes the virtual environment when missing (minutes at most, once) and a fresh set of keys.
    static func make() async throws -> JWTMint {
        let venv = try await runCommand(URL(fileURLWithPath: "/bin/bash"), [root.appendingPathComponent("tools/jwt-venv").path],
                                        timeout: .seconds(600))
        guard venv.exit.status == 0, let path = venv.standardOutput.last else {
            throw MintFailed("tools/jwt-venv failed: \(venv.standardError)")
        }
        let keys = try TemporaryFolder("jwt-keys")
        let mint = JWTMint(keys: keys, python: URL(fileURLWithPath: path))
        _ = try await mint.run(["keys", keys.path])
        return mint
    }

    /// The server's side of the keys: what `serve --jwt-…` would read, read from the same files.
    func authentication(issuer: String? = "https://id.test/", audience: String? = "chronicle",
                        deviceClaim: String? = "device_id") throws -> JWTAuthentication {
        var jwt = JWTAuthentication(issuer: issuer, audience: audience, deviceClaim: deviceClaim)
        try jwt.loadHS256Secret(file: keys.appending("hs.secret"), kid: "hs-1")
        try jwt.loadJWKS(file: keys.appending("jwks.json"))
        try jwt.loadPublicKey(file: keys.appending("rsa.pem"), kid: "rsa-pem")
        try jwt.loadPublicKey(file: keys.appending("ec.pem"), kid: "ec-pem")
        return jwt
    }

    /// A valid token for `tenant` (and `device`), signed with `algorithm` under `kid`.
    func token(_ algorithm: String = "ES256", kid: String = "ec-1", tenant: String, device: String? = nil,
               ttl: Int = 3600) async throws -> String {
        var arguments = ["token", keys.path, algorithm, kid, tenant]
        if let device { arguments.append(device) }
        arguments += ["--ttl", String(ttl)]
        return try await run(arguments).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every case of `tools/jwt-mint cases`: name → (token, "ok" or the refusal's class).
    func cases() async throws -> [(name: String, token: String, expect: String)] {
        let text = try await run(["cases", keys.path])
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [String: String]] ?? [:]
        return object.keys.sorted().map { (name: $0, token: object[$0]?["token"] ?? "", expect: object[$0]?["expect"] ?? "") }
    }

    private func run(_ arguments: [String]) async throws -> String {
        let output = try await runCommand(python, [Self.minter] + arguments, timeout: .seconds(300))
        guard output.exit.status == 0 else { throw MintFailed("tools/jwt-mint \(arguments.first ?? ""): \(output.standardError)") }
        return output.standardOutputText
    }

    func remove() { keys.remove() }

    struct MintFailed: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

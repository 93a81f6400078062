import Crypto
import Foundation

/// Which bearer token names which tenant.
///
/// ```swift
/// var tokens = TokenTable()
/// try tokens.add(token: "s3cret")                       // its own tenant, named from a hash
/// try tokens.add(token: "other", tenant: "acme")
/// try tokens.load(file: "/etc/chronicle/tokens")        // lines "tenant token"
/// tokens.tenant(for: "s3cret")                          // "t-…"
/// ```
///
/// Only SHA-256 digests of the tokens are kept, and a presented token is compared with
/// every entry in constant time: response times do not reveal how much of a guess matched.
/// A tenant named from a token uses a digest prefix, so the token itself never reaches disk.
public struct TokenTable: Sendable {
    struct Entry: Sendable {
        var tenant: String
        var digest: [UInt8]
    }

    private var entries: [Entry] = []

    /// Makes an empty table.
    public init() {}

    /// The tenants, sorted.
    public var tenants: [String] { Array(Set(entries.map(\.tenant))).sorted() }

    /// `true` when no token has been added.
    public var isEmpty: Bool { entries.isEmpty }

    /// Each token's SHA-256 with its tenant: what a shared storage records (never the token).
    public var digests: [(digest: [UInt8], tenant: String)] { entries.map { ($0.digest, $0.tenant) } }

    /// Adds `token`; without a `tenant` it gets its own, named from the token's hash.
    public mutating func add(token: String, tenant: String? = nil) throws(SyncServerError) {
        guard !token.isEmpty else { throw .invalidToken("a token must not be empty") }
        guard token.utf8.count <= 4096 else { throw .invalidToken("a token must be at most 4096 bytes") }
        guard token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F }) else {
            throw .invalidToken("a token must not contain spaces or control characters")
        }
        let tenant = tenant ?? Self.tenantName(forToken: token)
        guard Self.isValidTenant(tenant) else { throw .invalidTenant(tenant) }
        let digest = Self.digest(token)
        guard !entries.contains(where: { $0.digest == digest }) else {
            throw .invalidToken("the same token is configured twice")
        }
        entries.append(Entry(tenant: tenant, digest: digest))
    }

    /// Adds the `tenant token` lines of a file; blank lines and lines starting with `#` are skipped.
    /// A tenant may have several tokens (to rotate them).
    public mutating func load(file path: String) throws(SyncServerError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .cannotRead(path: path, reason: (error as NSError).localizedDescription)
        }
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2 else {
                throw .tokensFile(path: path, line: index + 1, reason: "expected 'tenant token', found \(fields.count) field(s)")
            }
            do {
                try add(token: String(fields[1]), tenant: String(fields[0]))
            } catch {
                throw .tokensFile(path: path, line: index + 1, reason: error.description)
            }
        }
    }

    /// The tenant `token` belongs to, or `nil`. Takes the same time whichever entry matches.
    public func tenant(for token: some StringProtocol) -> String? {
        let digest = Self.digest(token)
        var match = -1
        for (index, entry) in entries.enumerated() {
            var difference: UInt8 = 0
            for byte in 0..<32 { difference |= entry.digest[byte] ^ digest[byte] }
            // No early exit: every entry is compared in full.
            let isMatch = Int(bitPattern: UInt(difference == 0 ? 1 : 0))
            match = isMatch * index + (1 - isMatch) * match
        }
        return match >= 0 ? entries[match].tenant : nil
    }

    /// `t-` and the first 16 hex digits of the token's SHA-256.
    public static func tenantName(forToken token: String) -> String {
        "t-" + hex(digest(token).prefix(8))
    }

    /// Bytes as lowercase hex: how a digest is spelled wherever it is stored or looked up.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `name` can name a tenant: 1 to 64 ASCII letters, digits, `.`, `_` or `-`, not
    /// starting with `.` or `-` (it names a folder).
    public static func isValidTenant(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), bytes[0] != UInt8(ascii: "."), bytes[0] != UInt8(ascii: "-") else { return false }
        return bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// The SHA-256 of a token's UTF-8: how tables and storages know a token.
    public static func digest(_ token: some StringProtocol) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }
}

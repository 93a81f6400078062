import Crypto
import ChronicleLog
import Foundation

/// How the log names the keys of a model's rules (``ModelAppend``): a key too long for the
/// log is named by its hash.
enum ConsistencyKeys {
    /// `key` when it fits a key (``AppendKey/maxKeyBytes``), else named by what follows its first
    /// colon's SHA-256: `tag-name:<long name>` → `tag-name-sha256:<hex>`.
    static func fitted(_ key: String) -> String {
        guard key.utf8.count > AppendKey.maxKeyBytes, let colon = key.firstIndex(of: ":") else { return key }
        let rest = key[key.index(after: colon)...]
        return key[..<colon] + "-sha256:" + SHA256.hash(data: Data(rest.utf8)).map { byte in
            String(byte, radix: 16).leftPadded(to: 2)
        }.joined()
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

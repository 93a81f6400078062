import Foundation
import JWTKit

/// A JWT's payload as the server reads it: its top-level string, number and string-array
/// members (others are ignored), so that the tenant and device claims can be configured by name.
/// jwt-kit decodes it once the signature has verified; ``JWTVerifier`` checks the claims.
struct JWTClaimSet: JWTPayload {
    var strings: [String: String] = [:]
    var numbers: [String: Double] = [:]
    var stringLists: [String: [String]] = [:]

    init() {}

    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Name.self)
        for key in container.allKeys {
            if let text = try? container.decode(String.self, forKey: key) {
                strings[key.stringValue] = text
            } else if let number = try? container.decode(Double.self, forKey: key) {
                numbers[key.stringValue] = number
            } else if let list = try? container.decode([String].self, forKey: key) {
                stringLists[key.stringValue] = list
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Name.self)
        for (name, value) in strings { try container.encode(value, forKey: Name(stringValue: name)) }
        for (name, value) in numbers { try container.encode(value, forKey: Name(stringValue: name)) }
        for (name, value) in stringLists { try container.encode(value, forKey: Name(stringValue: name)) }
    }

    /// Nothing here: the claims are checked by ``JWTVerifier``, which names each failure's class.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

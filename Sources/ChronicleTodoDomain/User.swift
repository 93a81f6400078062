import Foundation
import UUIDText

/// A person who can own todos.
///
/// A plain value: the rules (trimmed non-empty name of at most
/// ``maxNameLength`` characters, age in ``ageRange``) are enforced by
/// the todo app's commands (the values by ``TodoAppInput``), not by this type.
///
/// ```swift
/// let ada = User(id: UUID(), name: "Ada", age: 36)
/// // JSON: {"id":"1f0e…","name":"Ada","age":36}
/// ```
public struct User: Sendable, Equatable, Hashable, Codable, Identifiable {
    public var id: UUID
    /// The person's name.
    public var name: String
    /// The person's age in years.
    public var age: Int

    /// The longest name accepted, in `Character`s after trimming.
    public static let maxNameLength = 200
    /// The ages accepted.
    public static let ageRange = 0...150

    /// Makes a user from its parts, unchecked: commands enforce the rules.
    public init(id: UUID, name: String, age: Int) {
        self.id = id
        self.name = name
        self.age = age
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, age
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decodeUUID(forKey: .id)
        self.name = try container.decode(String.self, forKey: .name)
        self.age = try container.decodeInteger(forKey: .age)
    }

    /// Writes `{"id","name","age"}` with the id in lowercase.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.lowercasedString, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(age, forKey: .age)
    }
}

extension KeyedDecodingContainer {
    /// Decodes an integer, reporting a fraction or an out-of-range number as
    /// this key's problem (Foundation otherwise calls the whole document invalid JSON).
    func decodeInteger(forKey key: Key) throws -> Int {
        do {
            return try decode(Int.self, forKey: key)
        } catch let error as DecodingError {
            throw error
        } catch {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected an integer that fits in 64 bits")
        }
    }

    /// Decodes a UUID written as a string in either case.
    func decodeUUID(forKey key: Key) throws -> UUID {
        let text = try decode(String.self, forKey: key)
        guard let id = UUID(uuidString: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "'\(text)' is not a UUID")
        }
        return id
    }

    /// Decodes an optional UUID; absent and `null` both mean nil.
    func decodeUUIDIfPresent(forKey key: Key) throws -> UUID? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let id = UUID(uuidString: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "'\(text)' is not a UUID")
        }
        return id
    }

    /// Decodes an optional list of UUIDs, each a string in either case;
    /// absent and `null` both mean nil.
    func decodeUUIDsIfPresent(forKey key: Key) throws -> [UUID]? {
        guard let texts = try decodeIfPresent([String].self, forKey: key) else { return nil }
        return try texts.map { text in
            guard let id = UUID(uuidString: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: self, debugDescription: "'\(text)' is not a UUID")
            }
            return id
        }
    }
}

import ChronicleSchema
import Foundation
import UUIDText

/// A label with a colour that todos can carry.
///
/// A plain value: the rules (trimmed non-empty name of at most
/// ``maxNameLength`` characters, unique among live tags by ``foldedName(_:)``,
/// colour `#rrggbb`) are enforced when commands are decided: the values by
/// ``TodoAppInput``, the rest by the todo app's model.
///
/// ```swift
/// let work = Tag(id: UUID(), name: "Work", color: "#1a2b3c")
/// // JSON: {"id":"1f0e…","name":"Work","color":"#1a2b3c"}
/// ```
public struct Tag: Sendable, Equatable, Hashable, Codable, Identifiable {
    public var id: UUID
    /// The label's text.
    public var name: String
    /// `#` and six lowercase hex digits, e.g. `"#1a2b3c"`.
    public var color: String

    /// The longest name accepted, in `Character`s after trimming.
    public static let maxNameLength = 50

    /// Makes a tag from its parts, unchecked: commands enforce the rules.
    public init(id: UUID, name: String, color: String) {
        self.id = id
        self.name = name
        self.color = color
    }

    /// The key two tag names are compared by for uniqueness and sorting:
    /// trimmed, then fully case folded in canonical form.
    ///
    /// "Work", "work" and "WORK" share a key, and so do "Straße" and
    /// "STRASSE" (ß folds to "ss") and "ΣΑΣ" and "σας" (final ς folds to σ),
    /// which `lowercased()` would keep apart. Folding is the default,
    /// non-Turkic one: "İ" folds to "i" + U+0307 and "ı" stays itself.
    ///
    /// ```swift
    /// Tag.foldedName(" Straße ") == Tag.foldedName("STRASSE")   // true
    /// ```
    public static func foldedName(_ name: String) -> String {
        ChronicleModel.Uniqueness.caseFolded.key(name)
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, color
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decodeUUID(forKey: .id)
        self.name = try container.decode(String.self, forKey: .name)
        self.color = try container.decode(String.self, forKey: .color)
    }

    /// Writes `{"id","name","color"}` with the id in lowercase.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.lowercasedString, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(color, forKey: .color)
    }
}

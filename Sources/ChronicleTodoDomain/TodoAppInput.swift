import Foundation

/// The todo app's own checks of what a person typed, with its documented texts
/// (`name must not be empty`, `age must be between 0 and 150 (got -1)`): run before a command
/// reaches the model, in the order the app has always checked them, so that the first problem
/// named is the same one as in every earlier release. Each returns the value as stored
/// (trimmed, in canonical composition, lowercased).
public enum TodoAppInput {
    /// A user's name: trimmed, 1…``User/maxNameLength`` characters.
    public static func userName(_ raw: String) throws(DomainError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw .emptyName }
        guard name.count <= User.maxNameLength else { throw .nameTooLong(name.count) }
        return name
    }

    /// A user's age, in ``User/ageRange``.
    public static func age(_ age: Int) throws(DomainError) -> Int {
        guard User.ageRange.contains(age) else { throw .ageOutOfRange(age) }
        return age
    }

    /// A todo's title: trimmed, 1…``Todo/maxTitleLength`` characters.
    public static func title(_ raw: String) throws(DomainError) -> String {
        let title = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !title.isEmpty else { throw .emptyTitle }
        guard title.count <= Todo.maxTitleLength else { throw .titleTooLong(title.count) }
        return title
    }

    /// A deadline: a real calendar day written `YYYY-MM-DD`.
    public static func deadline(_ raw: String) throws(DomainError) -> String {
        try CalendarDay(parsing: raw).description
    }

    /// A tag's name: trimmed, in canonical composition, 1…``Tag/maxNameLength`` characters.
    public static func tagName(_ raw: String) throws(DomainError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard !name.isEmpty else { throw .emptyTagName }
        guard name.count <= Tag.maxNameLength else { throw .tagNameTooLong(name.count) }
        return name
    }

    /// A colour: `#` and six hex digits, lowercased.
    public static func color(_ raw: String) throws(DomainError) -> String {
        let bytes = Array(raw.utf8)
        guard bytes.count == 7, bytes[0] == UInt8(ascii: "#"), bytes.dropFirst().allSatisfy(isHexDigit) else {
            throw .invalidColor(raw)
        }
        return raw.lowercased()
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}

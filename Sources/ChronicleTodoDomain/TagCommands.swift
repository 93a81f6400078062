import Foundation

/// Decides the events for tag commands, or why a command is rejected.
///
/// Pure functions, like ``UserCommands``: argument checks come before state
/// checks, and nothing is mutated. Name uniqueness needs every live tag, which
/// the domain does not hold, so the caller looks up the live tag whose
/// ``Tag/foldedName(_:)`` equals the new name's and passes its id as
/// `nameHolder` (nil when no live tag has it).
///
/// ```swift
/// let event = try TagCommands.create(id: UUID(), name: " Work ", color: "#1A2B3C", nameHolder: nil)
/// // .tagCreated(id: …, name: "Work", color: "#1a2b3c")
/// try TagCommands.create(id: UUID(), name: "WORK", color: "#000000", nameHolder: workID)
/// // throws .duplicateTagName("WORK")
/// ```
public enum TagCommands {
    /// Decides `TagCreated`.
    ///
    /// Name is trimmed (whitespace/newlines) and stored trimmed; non-empty, at
    /// most 50 Characters. Colour is `#` and six hex digits in either case,
    /// stored lowercase. Any `nameHolder` means the name is taken.
    /// - throws: ``DomainError/emptyTagName``, ``DomainError/tagNameTooLong(_:)``,
    ///   ``DomainError/invalidColor(_:)``, ``DomainError/duplicateTagName(_:)``.
    public static func create(
        id: UUID, name: String, color: String, nameHolder: UUID?
    ) throws(DomainError) -> DomainEvent {
        let name = try validName(name)
        let color = try validColor(color)
        guard nameHolder == nil else { throw .duplicateTagName(name) }
        return .tagCreated(id: id, name: name, color: color)
    }

    /// Decides `TagUpdated` carrying only the given fields.
    ///
    /// At least one of name/color (else nothingToUpdate); same validation as
    /// ``create(id:name:color:nameHolder:)``. `nameHolder` is looked at only when
    /// a name is given, and the tag itself holding the name is fine, so
    /// "Work" can become "WORK".
    /// - throws: validation errors, ``DomainError/nothingToUpdate``,
    ///   ``DomainError/unknownTag(_:)``, ``DomainError/tagDeleted(_:)``,
    ///   ``DomainError/duplicateTagName(_:)``.
    public static func update(
        _ current: TagAggregate, id: UUID, name: String?, color: String?, nameHolder: UUID?
    ) throws(DomainError) -> DomainEvent {
        guard name != nil || color != nil else { throw .nothingToUpdate }
        let name = try name.map { (name) throws(DomainError) in try validName(name) }
        let color = try color.map { (color) throws(DomainError) in try validColor(color) }
        _ = try current.requireLive(id: id)
        if let name, let nameHolder, nameHolder != id { throw .duplicateTagName(name) }
        return .tagUpdated(id: id, name: name, color: color)
    }

    /// Decides `TagDeleted`.
    ///
    /// Todos keep remembering the tag; read models stop showing it.
    /// - throws: ``DomainError/unknownTag(_:)``, ``DomainError/tagDeleted(_:)``.
    public static func delete(_ current: TagAggregate, id: UUID) throws(DomainError) -> DomainEvent {
        _ = try current.requireLive(id: id)
        return .tagDeleted(id: id)
    }

    // MARK: - Validation

    /// Trimmed, and in canonical composition (NFC: the shape of tag events since schema
    /// version 2, see ``TodoAppModel``), so one name is one byte sequence.
    private static func validName(_ raw: String) throws(DomainError) -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
        guard !name.isEmpty else { throw .emptyTagName }
        let count = name.count
        guard count <= Tag.maxNameLength else { throw .tagNameTooLong(count) }
        return name
    }

    /// `#` and exactly six ASCII hex digits, lowercased. Checked on UTF-8 bytes
    /// so that full-width or other Unicode digits cannot pass as hex.
    private static func validColor(_ raw: String) throws(DomainError) -> String {
        let bytes = Array(raw.utf8)
        guard bytes.count == 7, bytes[0] == UInt8(ascii: "#") else { throw .invalidColor(raw) }
        var lowered: [UInt8] = [UInt8(ascii: "#")]
        for byte in bytes.dropFirst() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
                lowered.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                lowered.append(byte - UInt8(ascii: "A") + UInt8(ascii: "a"))
            default:
                throw .invalidColor(raw)
            }
        }
        return String(decoding: lowered, as: UTF8.self)
    }
}

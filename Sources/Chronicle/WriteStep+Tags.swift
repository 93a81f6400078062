import ChronicleTodoDomain
import Foundation
import ChronicleLog
import UUIDText

extension WriteStep {
    /// Creates a tag. The name is trimmed, 1…50 characters, and unique among live tags
    /// without regard to case ("Work" and "WORK" collide), whichever process adds it;
    /// the color is `#rrggbb` in either case, stored lowercase.
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.duplicateTagName(_:)`,
    ///   `DomainError.invalidColor(_:)`, `DomainError.emptyTagName`, `DomainError.tagNameTooLong(_:)`.
    @discardableResult
    nonisolated(nonsending) public func createTag(name: String, color: String) async throws -> Tag {
        let name = try ChronicleError.mapping { try TodoAppInput.tagName(name) }
        let color = try ChronicleError.mapping { try TodoAppInput.color(color) }
        let id = UUIDv7.make()
        try decide("Tag", id, .create(["name": .text(name), "color": .text(color)]))
        return try tag(id)
    }

    /// Renames and/or recolors a tag; the new name must not be another live tag's.
    /// - throws: ``ChronicleError/rejected(_:)`` as for ``createTag(name:color:)``, and
    ///   `DomainError.unknownTag(_:)`, `DomainError.tagDeleted(_:)`, `DomainError.nothingToUpdate`.
    @discardableResult
    nonisolated(nonsending) public func updateTag(_ id: UUID, name: String? = nil, color: String? = nil) async throws -> Tag {
        guard name != nil || color != nil else { throw ChronicleError.rejected(.nothingToUpdate) }
        var values: [String: ChronicleModel.FieldValue] = [:]
        if let name { values["name"] = .text(try ChronicleError.mapping { try TodoAppInput.tagName(name) }) }
        if let color { values["color"] = .text(try ChronicleError.mapping { try TodoAppInput.color(color) }) }
        try decide("Tag", id, .update(values))
        return try tag(id)
    }

    /// Deletes a tag: it leaves every todo's `tags`, and its name is free again.
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.unknownTag(_:)` or `DomainError.tagDeleted(_:)`.
    nonisolated(nonsending) public func deleteTag(_ id: UUID) async throws {
        try decide("Tag", id, .delete)
    }
}

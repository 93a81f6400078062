import ChronicleTodoDomain
import ChronicleLog
import Foundation
import UUIDText

extension WriteStep {
    /// Creates a tag. The name is trimmed, 1…50 characters, and unique among live tags
    /// without regard to case ("Work" and "WORK" collide), whichever process adds it;
    /// the color is `#rrggbb` in either case, stored lowercase.
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.duplicateTagName(_:)`,
    ///   `DomainError.invalidColor(_:)`, `DomainError.emptyTagName`, `DomainError.tagNameTooLong(_:)`.
    @discardableResult
    nonisolated(nonsending) public func createTag(name: String, color: String) async throws -> Tag {
        try await ChronicleError.mapping {
            let id = UUIDv7.make()
            let nameKey = ConsistencyKeys.tagName(name)
            let event = try TagCommands.create(id: id, name: name, color: color, nameHolder: try tagHolding(nameKey))
            try await store.refuseShownName(name, except: id)
            stage(event, readAt: 0)
            add(.claim(nameKey, by: event.stream))
            return try tag(id).aggregate.tag!
        }
    }

    /// Renames and/or recolors a tag; the new name must not be another live tag's.
    /// - throws: ``ChronicleError/rejected(_:)`` as for ``createTag(name:color:)``, and
    ///   `DomainError.unknownTag(_:)`, `DomainError.tagDeleted(_:)`, `DomainError.nothingToUpdate`.
    @discardableResult
    nonisolated(nonsending) public func updateTag(_ id: UUID, name: String? = nil, color: String? = nil) async throws -> Tag {
        try await ChronicleError.mapping {
            var (aggregate, version) = try tag(id)
            let newKey = name.map(ConsistencyKeys.tagName)
            let event = try TagCommands.update(aggregate, id: id, name: name, color: color,
                                               nameHolder: try newKey.flatMap(tagHolding))
            if let name { try await store.refuseShownName(name, except: id) }
            let oldKey = aggregate.tag.map { ConsistencyKeys.tagName($0.name) }
            aggregate.apply(event)
            stage(event, readAt: version)
            if let newKey, let oldKey, newKey != oldKey {
                try releaseTagName(oldKey, of: id, by: event.stream)
                add(.claim(newKey, by: event.stream))
            }
            return aggregate.tag!
        }
    }

    /// Deletes a tag: it leaves every todo's `tags`, and its name is free again.
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.unknownTag(_:)` or `DomainError.tagDeleted(_:)`.
    nonisolated(nonsending) public func deleteTag(_ id: UUID) async throws {
        try ChronicleError.mapping {
            let (aggregate, version) = try tag(id)
            let event = try TagCommands.delete(aggregate, id: id)
            stage(event, readAt: version)
            if let tag = aggregate.tag { try releaseTagName(ConsistencyKeys.tagName(tag.name), of: id, by: event.stream) }
        }
    }
}

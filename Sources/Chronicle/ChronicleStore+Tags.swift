import ChronicleTodoDomain
import ChronicleLog
import Foundation
import UUIDText

extension ChronicleStore {
    /// Creates a tag. The name is trimmed, 1…50 characters, and unique among live tags
    /// without regard to case ("Work" and "WORK" collide), whichever process adds it;
    /// the color is `#rrggbb` in either case, stored lowercase.
    ///
    /// ```swift
    /// let work = try await store.createTag(name: "Work", color: "#FF8800")
    /// try await store.createTag(name: "work", color: "#000000")   // throws .rejected(.duplicateTagName("work"))
    /// ```
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.duplicateTagName(_:)`,
    ///   `DomainError.invalidColor(_:)`, `DomainError.emptyTagName`, `DomainError.tagNameTooLong(_:)`.
    @discardableResult
    public func createTag(name: String, color: String) async throws -> Tag {
        try await write { step in try await step.createTag(name: name, color: color) }.value
    }

    /// Renames and/or recolors a tag; the new name must not be another live tag's.
    /// - throws: ``ChronicleError/rejected(_:)`` as for ``createTag(name:color:)``, and
    ///   `DomainError.unknownTag(_:)`, `DomainError.tagDeleted(_:)`, `DomainError.nothingToUpdate`.
    @discardableResult
    public func updateTag(_ id: UUID, name: String? = nil, color: String? = nil) async throws -> Tag {
        try await write { step in try await step.updateTag(id, name: name, color: color) }.value
    }

    /// Deletes a tag: it leaves every todo's `tags`, and its name is free again.
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.unknownTag(_:)` or `DomainError.tagDeleted(_:)`.
    public func deleteTag(_ id: UUID) async throws {
        _ = try await write { step in try await step.deleteTag(id) }
    }

    /// Tags a todo; the tag must be live, and stays so until the append commits.
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.alreadyTagged(todo:tag:)`,
    ///   `DomainError.unknownTag(_:)`, `DomainError.tagDeleted(_:)`, or the todo's rejections.
    @discardableResult
    public func tagTodo(_ todoID: UUID, tag tagID: UUID) async throws -> Todo {
        try await write { step in try await step.tagTodo(todoID, tag: tagID) }.value
    }

    /// Removes a live tag from a todo.
    /// - throws: ``ChronicleError/rejected(_:)`` with `DomainError.notTagged(todo:tag:)`,
    ///   `DomainError.tagDeleted(_:)`, `DomainError.unknownTag(_:)` or the todo's rejections.
    @discardableResult
    public func untagTodo(_ todoID: UUID, tag tagID: UUID) async throws -> Todo {
        try await write { step in try await step.untagTodo(todoID, tag: tagID) }.value
    }

    /// The tag, or `nil` when unknown or deleted.
    public func tag(_ id: UUID) async throws -> Tag? {
        try await readingTodoApp { states in try states.shown(Tag.self, id: id) }
    }

    /// Every live tag, by case-folded name, then id.
    public func tags() async throws -> [Tag] {
        try await readingTodoApp { states in TodoAppOrder.byName(try states.shown(Tag.self)) { Tag.foldedName($0.name) } }
    }
}

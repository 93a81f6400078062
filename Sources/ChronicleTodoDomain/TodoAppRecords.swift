import ChronicleSchema
import Foundation

// The todo app's values read where the store keeps its entities (`ChronicleRecord`): each
// field read in place, no dictionary of values built. What the store's typed reads return.

extension User: ChronicleRecord {
    /// The entity of ``TodoAppModel`` a user is read from.
    public static var entity: String { "User" }

    /// Reads a shown user.
    /// - throws: ``TodoAppRecordProblem`` when the stored user lacks its name or age.
    public init(_ fields: borrowing ChronicleModel.Fields) throws {
        guard let name = fields.text("name"), let age = fields.integer("age") else {
            throw TodoAppRecordProblem(entity: "User", id: fields.id, missing: "name or age")
        }
        self.init(id: fields.id, name: name, age: age)
    }
}

extension Todo: ChronicleRecord {
    /// The entity of ``TodoAppModel`` a todo is read from.
    public static var entity: String { "Todo" }

    /// Reads a shown todo: its `tags` are its shown tags, in ``sortedTagIDs(_:)`` order (the
    /// order a set keeps its members in).
    /// - throws: ``TodoAppRecordProblem`` when the stored todo lacks its title or deadline.
    public init(_ fields: borrowing ChronicleModel.Fields) throws {
        guard let title = fields.text("title"), let day = fields.day("deadline") else {
            throw TodoAppRecordProblem(entity: "Todo", id: fields.id, missing: "title or deadline")
        }
        self.init(id: fields.id, title: title, deadline: CalendarDay(validYear: day.year, month: day.month, day: day.day),
                  userId: fields.reference("userId"), memo: fields.text("memo").flatMap(Todo.memo(written:)),
                  isCompleted: fields.boolean("isCompleted") ?? false, tags: fields.members(of: "tags"))
    }
}

extension Tag: ChronicleRecord {
    /// The entity of ``TodoAppModel`` a tag is read from.
    public static var entity: String { "Tag" }

    /// Reads a shown tag, its name as shown (`Work (2)` after a merge let two tags share one).
    /// - throws: ``TodoAppRecordProblem`` when the stored tag lacks its name or color.
    public init(_ fields: borrowing ChronicleModel.Fields) throws {
        guard let name = fields.text("name"), let color = fields.text("color") else {
            throw TodoAppRecordProblem(entity: "Tag", id: fields.id, missing: "name or color")
        }
        self.init(id: fields.id, name: name, color: color)
    }
}

/// A stored entity of the todo app that lacks a field its model requires: the stored read
/// model is damaged (a rebuild folds it again from the log).
public struct TodoAppRecordProblem: Error, CustomStringConvertible {
    /// The entity's name and id.
    public let entity: String, id: UUID
    /// The fields it lacks.
    public let missing: String

    public var description: String {
        "the stored \(entity) \(id.uuidString.lowercased()) has no \(missing): rebuild the entities ('chronicle rebuild --projection entities')"
    }
}

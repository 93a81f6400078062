import ChronicleSchema
import Foundation

// The todo app's values from its model's entity states (`ChronicleModel.EntityState`), as a
// command leaves them.

extension User {
    /// The user a `User` state holds; nil for a state of another entity or without its fields.
    public init?(_ state: ChronicleModel.EntityState) {
        guard state.entity == "User", case .text(let name)? = state.values["name"],
              case .integer(let age)? = state.values["age"] else { return nil }
        self.init(id: state.id, name: name, age: age)
    }
}

extension Todo {
    /// The todo a `Todo` state holds, with the tags `isShownTag` keeps (sorted as read models
    /// sort them); nil for a state of another entity or without its fields.
    public init?(_ state: ChronicleModel.EntityState, isShownTag: (UUID) throws -> Bool) rethrows {
        guard state.entity == "Todo", case .text(let title)? = state.values["title"],
              case .text(let deadline)? = state.values["deadline"], let day = try? CalendarDay(parsing: deadline) else { return nil }
        var memo: String?
        if case .text(let text)? = state.values["memo"] { memo = Todo.memo(written: text) }
        self.init(id: state.id, title: title, deadline: day, userId: state.reference("userId"), memo: memo,
                  isCompleted: state.values["isCompleted"] == .boolean(true),
                  tags: Todo.sortedTagIDs(try state.members(of: "tags").filter(isShownTag)))
    }
}

extension Tag {
    /// The tag a `Tag` state holds; nil for a state of another entity or without its fields.
    public init?(_ state: ChronicleModel.EntityState) {
        guard state.entity == "Tag", case .text(let name)? = state.values["name"],
              case .text(let color)? = state.values["color"] else { return nil }
        self.init(id: state.id, name: name, color: color)
    }
}

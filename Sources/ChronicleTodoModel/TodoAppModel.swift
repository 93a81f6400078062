import ChronicleSchema

/// The todo app's model: users, their todos, tags, and the todos due per day. The `chronicle`
/// CLI's built-in model, declared on the public API as any app declares its own
/// (docs/CLI.md, "Entities and rules").
public enum TodoAppModel {
    /// The model, version 1.
    public static let model: ChronicleModel = {
        do {
            return try ChronicleModel("todo-app", version: 1) { model in
                model.entity("User") { user in
                    user.text("name", .trimmed, .notBlank, .maxLength(200))
                    user.integer("age", .range(0...150))
                }
                model.entity("Todo") { todo in
                    todo.text("title", .trimmed, .notBlank, .maxLength(500))
                    todo.day("deadline")
                    todo.reference("userId", to: "User", optional: true, onParentDeletion: .deleteWithParent)
                    todo.text("memo", .emptyIsAbsent, optional: true)
                    todo.boolean("isCompleted", default: .boolean(false),
                                 setBy: ChronicleModel.SetEvents(on: "TodoCompleted", off: "TodoReopened"))
                    todo.references("tags", to: "Tag", setBy: ChronicleModel.SetEvents(on: "TodoTagged", off: "TodoUntagged"))
                }
                // Tag events carry data of shape 2 (names in canonical composition).
                model.entity("Tag", eventSchemaVersion: 2) { tag in
                    tag.text("name", .trimmed, .notBlank, .maxLength(50), .canonicalComposition, unique: .caseFolded)
                    tag.text("color", .pattern("#[0-9a-fA-F]{6}"), .lowercased)
                }
                model.aggregate("DailyStat", of: "Todo", groupedBy: "deadline", as: "date") { day in
                    day.count("total")
                    day.count("completed", where: "isCompleted")
                }
            }
        } catch {
            preconditionFailure("the todo app's model is declared wrong: \(error)")
        }
    }()
}

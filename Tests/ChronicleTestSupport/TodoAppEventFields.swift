import ChronicleSchema
import ChronicleTodoModel

/// The todo app's model as its events are read: the reader, and each entity and field found
/// once, by place, so that making a ``TodoAppEvent`` from a model's event looks up no name.
enum TodoAppEventFields {
    /// Reads the log's events by the todo app's model (``TodoAppModel``).
    static let reader = ChronicleModel.EventReader(TodoAppModel.model)

    /// The places of the entities in the model.
    static let user = place(of: "User")
    static let todo = place(of: "Todo")
    static let tag = place(of: "Tag")

    /// What the streams of the model's users, todos and tags start with, before the id.
    static let userStreamPrefix = streamPrefix(place: user)
    static let todoStreamPrefix = streamPrefix(place: todo)
    static let tagStreamPrefix = streamPrefix(place: tag)

    /// The users' fields.
    enum Users {
        static let name = field("name", of: "User")
        static let age = field("age", of: "User")
    }

    /// The todos' fields given by their creations and updates.
    enum Todos {
        static let title = field("title", of: "Todo")
        static let deadline = field("deadline", of: "Todo")
        static let userId = field("userId", of: "Todo")
        static let memo = field("memo", of: "Todo")
    }

    /// The tags' fields.
    enum Tags {
        static let name = field("name", of: "Tag")
        static let color = field("color", of: "Tag")
    }

    /// The member of a tagging's and an untagging's data that holds the tag's id.
    static let tagMember: String = {
        guard let member = TodoAppModel.model.entity(named: "Todo")?.fields.first(where: { $0.name == "tags" })?.member else {
            preconditionFailure("the todo app's model has no set of tags")
        }
        return member
    }()

    /// The version of the data's shape the model gives the events of entity `place`.
    static func schemaVersion(place: Int) -> UInt16 {
        UInt16(TodoAppModel.model.entities[place].eventSchemaVersion)
    }

    private static func streamPrefix(place: Int) -> String {
        TodoAppModel.model.entities[place].stream + "-"
    }

    private static func place(of entity: String) -> Int {
        guard let place = TodoAppModel.model.entities.firstIndex(where: { $0.name == entity }) else {
            preconditionFailure("the todo app's model has no entity \(entity)")
        }
        return place
    }

    private static func field(_ name: String, of entity: String) -> ChronicleModel.FieldKey {
        guard let key = TodoAppModel.model.fieldKey(name, of: entity) else {
            preconditionFailure("the todo app's model has no field \(entity).\(name)")
        }
        return key
    }
}

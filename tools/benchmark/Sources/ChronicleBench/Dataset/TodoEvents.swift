import Chronicle
import Foundation

/// The todo app's events as the benchmark writes and reads them, through the app's declared
/// model (`TodoAppModel.model`).
///
/// Writing: the streams and the data the model's decider would write
/// (`ChronicleModel.eventData`: keys sorted, no white space, absent fields left out, ids
/// lowercase). Reading: the model's reader reads a stored event; its entity's place and its
/// change give the case. The data set holds users and todos only, so tags, taggings and
/// restorations are all `other`.
///
/// ```swift
/// let data = TodoEvent.userData(name: "Ada", age: 36)   // {"age":36,"name":"Ada"}
/// let event = try TodoEvent(type: "UserCreated", stream: TodoEvent.userStream(id), data: data)
/// // .userCreated(id: id, name: "Ada", age: 36)
/// ```
enum TodoEvent: Sendable, Hashable {
    case userCreated(id: UUID, name: String, age: Int)
    /// Nil leaves a field unchanged.
    case userUpdated(id: UUID, name: String?, age: Int?)
    case userDeleted(id: UUID)
    case todoCreated(id: UUID, title: String, deadline: CalendarDay, userId: UUID?, memo: String?)
    /// Nil leaves a field unchanged.
    case todoUpdated(id: UUID, title: String?, deadline: CalendarDay?, memo: String?)
    case todoCompleted(id: UUID)
    case todoReopened(id: UUID)
    case todoDeleted(id: UUID)
    /// A tag's event, a tagging or untagging, or a restoration.
    case other

    // MARK: - Writing

    /// A user's stream: `user-<lowercase id>`.
    static func userStream(_ id: UUID) -> String { userStreamPrefix + id.uuidString.lowercased() }

    /// A todo's stream: `todo-<lowercase id>`.
    static func todoStream(_ id: UUID) -> String { todoStreamPrefix + id.uuidString.lowercased() }

    /// The data of a user's creation or update: the fields given.
    static func userData(name: String?, age: Int?) -> Data {
        var values: [String: ChronicleModel.FieldValue] = [:]
        if let name { values[Users.name.name] = .text(name) }
        if let age { values[Users.age.name] = .integer(age) }
        return ChronicleModel.eventData(values)
    }

    /// The data of a todo's creation or update: the fields given (the deadline as
    /// `YYYY-MM-DD`, the owner as its lowercase id).
    static func todoData(title: String?, deadline: CalendarDay?, userId: UUID? = nil, memo: String?) -> Data {
        var values: [String: ChronicleModel.FieldValue] = [:]
        if let title { values[Todos.title.name] = .text(title) }
        if let deadline { values[Todos.deadline.name] = .text(deadline.description) }
        if let userId { values[Todos.userId.name] = .id(userId) }
        if let memo { values[Todos.memo.name] = .text(memo) }
        return ChronicleModel.eventData(values)
    }

    /// The data of an event that gives no fields: `{}`.
    static let emptyData = ChronicleModel.eventData([:])

    // MARK: - Reading

    /// Reads a stored event by the todo app's model.
    ///
    /// - throws: the reader's `ChronicleModel.EventProblem` when it refuses the event, or
    ///   `BenchError.unsupported` for a creation that lacks a field.
    init(type: String, stream: String, data: Data) throws {
        let (event, place) = try Self.reader.readPlaced(type: type, stream: stream, data: data)
        guard let read = TodoEvent(event, place: place) else {
            throw BenchError.unsupported("\(type) is not an event of the todo app")
        }
        self = read
    }

    /// The case of `event`, whose entity is at `place` in the model; nil for a creation that
    /// lacks a field.
    private init?(_ event: ChronicleModel.Event, place: Int) {
        let id = event.id
        switch (place, event.change) {
        case (Self.user, .created(let values)):
            guard let name = values.text(Users.name), let age = values.integer(Users.age) else { return nil }
            self = .userCreated(id: id, name: name, age: age)
        case (Self.user, .updated(let values)):
            self = .userUpdated(id: id, name: values.text(Users.name), age: values.integer(Users.age))
        case (Self.user, .deleted):
            self = .userDeleted(id: id)
        case (Self.todo, .created(let values)):
            guard let title = values.text(Todos.title), let deadline = values.day(Todos.deadline) else { return nil }
            self = .todoCreated(id: id, title: title, deadline: deadline, userId: values.id(Todos.userId),
                                memo: values.text(Todos.memo))
        case (Self.todo, .updated(let values)):
            self = .todoUpdated(id: id, title: values.text(Todos.title), deadline: values.day(Todos.deadline),
                                memo: values.text(Todos.memo))
        case (Self.todo, .set(_, let on)):
            self = on ? .todoCompleted(id: id) : .todoReopened(id: id)
        case (Self.todo, .deleted):
            self = .todoDeleted(id: id)
        default:
            self = .other
        }
    }

    // MARK: - The model, looked up once

    /// Reads the log's events by the todo app's model.
    private static let reader = ChronicleModel.EventReader(TodoAppModel.model)

    /// The places of the users and the todos in the model.
    private static let user = place(of: "User")
    private static let todo = place(of: "Todo")

    private static let userStreamPrefix = TodoAppModel.model.entities[user].stream + "-"
    private static let todoStreamPrefix = TodoAppModel.model.entities[todo].stream + "-"

    private enum Users {
        static let name = field("name", of: "User")
        static let age = field("age", of: "User")
    }

    private enum Todos {
        static let title = field("title", of: "Todo")
        static let deadline = field("deadline", of: "Todo")
        static let userId = field("userId", of: "Todo")
        static let memo = field("memo", of: "Todo")
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

private extension ChronicleModel.FieldValues {
    /// The text `field` holds (nil: none).
    func text(_ field: ChronicleModel.FieldKey) -> String? {
        if case .text(let text)? = self[field] { text } else { nil }
    }

    /// The integer `field` holds (nil: none).
    func integer(_ field: ChronicleModel.FieldKey) -> Int? {
        if case .integer(let value)? = self[field] { value } else { nil }
    }

    /// The calendar day `field` holds (nil: none; the model's reader checked it is a real one).
    func day(_ field: ChronicleModel.FieldKey) -> CalendarDay? {
        text(field).flatMap { try? CalendarDay(parsing: $0) }
    }

    /// The id `field` holds (nil: none; the model's reader wrote it lowercase).
    func id(_ field: ChronicleModel.FieldKey) -> UUID? {
        text(field).flatMap { UUID(uuidString: $0) }
    }
}

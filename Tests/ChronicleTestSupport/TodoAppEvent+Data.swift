import ChronicleSchema
import ChronicleTodoDomain
import ChronicleTodoModel
import Foundation
import UUIDText

extension TodoAppEvent {
    /// The event's `data` as the todo app's model writes it (``ChronicleModel/eventData(_:)``):
    /// keys sorted, no whitespace, absent optionals omitted, ids lowercase.
    ///
    /// The bytes are deterministic, so hashing them is stable:
    ///
    /// ```swift
    /// TodoAppEvent.todoCreated(id: id, title: "Pay rent", deadline: day, userId: nil, memo: nil)
    ///     .encodedData()    // {"deadline":"2026-03-01","title":"Pay rent"}
    /// TodoAppEvent.userDeleted(id: id).encodedData()   // {}
    /// TodoAppEvent.tagCreated(id: id, name: "Work", color: "#1a2b3c")
    ///     .encodedData()    // {"color":"#1a2b3c","name":"Work"}
    /// TodoAppEvent.todoTagged(id: todo, tagId: tag).encodedData()   // {"tagId":"3c4d…"}
    /// ```
    public func encodedData() -> Data {
        ChronicleModel.eventData(dataValues)
    }

    /// What the event's data holds, under the names of the model's fields.
    private var dataValues: [String: ChronicleModel.FieldValue] {
        typealias Users = TodoAppEventFields.Users
        typealias Todos = TodoAppEventFields.Todos
        typealias Tags = TodoAppEventFields.Tags
        var values: [String: ChronicleModel.FieldValue] = [:]
        func put(_ field: ChronicleModel.FieldKey, _ value: ChronicleModel.FieldValue?) {
            if let value { values[field.name] = value }
        }
        switch self {
        case .userCreated(_, let name, let age):
            put(Users.name, .text(name))
            put(Users.age, .integer(age))
        case .userUpdated(_, let name, let age):
            put(Users.name, name.map { .text($0) })
            put(Users.age, age.map { .integer($0) })
        case .todoCreated(_, let title, let deadline, let userId, let memo):
            put(Todos.title, .text(title))
            put(Todos.deadline, .text(deadline.description))
            put(Todos.userId, userId.map { .id($0) })
            put(Todos.memo, memo.map { .text($0) })
        case .todoUpdated(_, let title, let deadline, let memo):
            put(Todos.title, title.map { .text($0) })
            put(Todos.deadline, deadline.map { .text($0.description) })
            put(Todos.memo, memo.map { .text($0) })
        case .tagCreated(_, let name, let color):
            put(Tags.name, .text(name))
            put(Tags.color, .text(color))
        case .tagUpdated(_, let name, let color):
            put(Tags.name, name.map { .text($0) })
            put(Tags.color, color.map { .text($0) })
        case .todoTagged(_, let tagId), .todoUntagged(_, let tagId):
            values[TodoAppEventFields.tagMember] = .id(tagId)
        case .userDeleted, .todoCompleted, .todoReopened, .todoDeleted, .tagDeleted,
             .userRestored, .todoRestored, .tagRestored:
            break
        }
        return values
    }
}

// MARK: - Decoding

extension TodoAppEvent {
    /// Decodes a stored event from its envelope's `type`, `stream` and `data`, read by the todo
    /// app's model (``TodoAppModel``) as any declared model's events are.
    ///
    /// The type must be one of the model's, the stream the canonical `user-<lowercase uuid>`,
    /// `todo-<lowercase uuid>` or `tag-<lowercase uuid>` of its entity, and `data` one strictly
    /// valid JSON object (RFC 8259, UTF-8, no duplicate keys, at most 128 levels) whose members
    /// have their fields' types. Integers are written as integers (`36`, not `36.0`); members the
    /// model does not declare are passed over (forward compatibility); `null` counts as absent.
    /// Business rules (name length, age range, tag colour, unique tag names) are not checked
    /// again: a stored event is a fact. A tag's id (`tagId`) must be a lowercase UUID, like the
    /// ids in stream names, because read models key by it.
    ///
    /// ```swift
    /// let event = try TodoAppEvent(type: "UserCreated", stream: "user-\(id.lowercasedString)",
    ///                             data: Data(#"{"age":36,"name":"Ada"}"#.utf8))
    /// ```
    /// - throws: ``DomainError/invalidEvent(_:)`` saying what is wrong; never traps,
    ///   whatever the bytes.
    ///
    /// `schemaVersion` is the version of `data`'s shape (the event's record says it; 1 for an
    /// event written before versions existed): the model reads an older shape as the current one.
    public init(type: String, stream: String, data: Data, schemaVersion: UInt16 = 1) throws(DomainError) {
        var (type, stream) = (type, stream)
        let decoded = type.withUTF8 { type in
            stream.withUTF8 { stream in
                data.withUnsafeBytes { data in
                    Result { () throws(DomainError) in
                        try TodoAppEvent(type: UnsafeRawBufferPointer(type), stream: UnsafeRawBufferPointer(stream), data: data,
                                        schemaVersion: schemaVersion)
                    }
                }
            }
        }
        self = try decoded.get()
    }

    /// Decodes a stored event from the UTF-8 bytes of its envelope's `type` and `stream` and
    /// its `data`, as ``init(type:stream:data:schemaVersion:)`` does: for a reader of the log's
    /// records in place, which then copies out only what the event holds.
    public init(type: UnsafeRawBufferPointer, stream: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer,
                schemaVersion: UInt16 = 1) throws(DomainError) {
        let read: (event: ChronicleModel.Event, place: Int)
        do {
            read = try TodoAppEventFields.reader.readPlaced(type: type, stream: stream, data: data, schemaVersion: Int(schemaVersion))
        } catch {
            throw .invalidEvent(error.description)
        }
        guard let event = TodoAppEvent(read.event, place: read.place) else {
            throw .invalidEvent("\(read.event.type) is not an event of the todo app")
        }
        self = event
    }
}

extension TodoAppEvent {
    /// The todo app's event that `event`, read by the todo app's model, is; `place` is its
    /// entity's place in the model. Nil for an event the todo app has no case for.
    init?(_ event: ChronicleModel.Event, place: Int) {
        let id = event.id
        switch (place, event.change) {
        case (TodoAppEventFields.user, .created(let values)):
            typealias Fields = TodoAppEventFields.Users
            guard let name = values.text(Fields.name), let age = values.integer(Fields.age) else { return nil }
            self = .userCreated(id: id, name: name, age: age)
        case (TodoAppEventFields.user, .updated(let values)):
            typealias Fields = TodoAppEventFields.Users
            self = .userUpdated(id: id, name: values.text(Fields.name), age: values.integer(Fields.age))
        case (TodoAppEventFields.user, .deleted): self = .userDeleted(id: id)
        case (TodoAppEventFields.user, .restored): self = .userRestored(id: id)
        case (TodoAppEventFields.todo, .created(let values)):
            typealias Fields = TodoAppEventFields.Todos
            guard let title = values.text(Fields.title), let deadline = values.day(Fields.deadline) else { return nil }
            self = .todoCreated(id: id, title: title, deadline: deadline, userId: values.id(Fields.userId),
                                memo: values.text(Fields.memo))
        case (TodoAppEventFields.todo, .updated(let values)):
            typealias Fields = TodoAppEventFields.Todos
            self = .todoUpdated(id: id, title: values.text(Fields.title), deadline: values.day(Fields.deadline),
                                memo: values.text(Fields.memo))
        case (TodoAppEventFields.todo, .set(_, let on)): self = on ? .todoCompleted(id: id) : .todoReopened(id: id)
        case (TodoAppEventFields.todo, .added(_, let tag)): self = .todoTagged(id: id, tagId: tag)
        case (TodoAppEventFields.todo, .removed(_, let tag)): self = .todoUntagged(id: id, tagId: tag)
        case (TodoAppEventFields.todo, .deleted): self = .todoDeleted(id: id)
        case (TodoAppEventFields.todo, .restored): self = .todoRestored(id: id)
        case (TodoAppEventFields.tag, .created(let values)):
            typealias Fields = TodoAppEventFields.Tags
            guard let name = values.text(Fields.name), let color = values.text(Fields.color) else { return nil }
            self = .tagCreated(id: id, name: name, color: color)
        case (TodoAppEventFields.tag, .updated(let values)):
            typealias Fields = TodoAppEventFields.Tags
            self = .tagUpdated(id: id, name: values.text(Fields.name), color: values.text(Fields.color))
        case (TodoAppEventFields.tag, .deleted): self = .tagDeleted(id: id)
        case (TodoAppEventFields.tag, .restored): self = .tagRestored(id: id)
        default: return nil
        }
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
        text(field).flatMap { UUID(canonical: $0) }
    }
}

extension TodoAppEvent {
    /// The version of the data's shape ``encodedData()`` writes, as the model's decider writes
    /// it: the entity's (``ChronicleModel/Entity/eventSchemaVersion``) for a creation or an
    /// update, whose data gives fields; 1 for the others.
    public var schemaVersion: UInt16 {
        switch self {
        case .userCreated, .userUpdated: TodoAppEventFields.schemaVersion(place: TodoAppEventFields.user)
        case .todoCreated, .todoUpdated: TodoAppEventFields.schemaVersion(place: TodoAppEventFields.todo)
        case .tagCreated, .tagUpdated: TodoAppEventFields.schemaVersion(place: TodoAppEventFields.tag)
        default: 1
        }
    }
}

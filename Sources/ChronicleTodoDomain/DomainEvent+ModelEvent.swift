import ChronicleSchema
import Foundation
import UUIDText

extension DomainEvent {
    /// The todo app's event that `event`, read by the todo app's model, is; `place` is its
    /// entity's place in the model. Nil for an event the todo app has no case for.
    init?(_ event: ChronicleModel.Event, place: Int) {
        let id = event.id
        switch (place, event.change) {
        case (TodoAppEvents.user, .created(let values)):
            typealias Fields = TodoAppEvents.Users
            guard let name = values.text(Fields.name), let age = values.integer(Fields.age) else { return nil }
            self = .userCreated(id: id, name: name, age: age)
        case (TodoAppEvents.user, .updated(let values)):
            typealias Fields = TodoAppEvents.Users
            self = .userUpdated(id: id, name: values.text(Fields.name), age: values.integer(Fields.age))
        case (TodoAppEvents.user, .deleted): self = .userDeleted(id: id)
        case (TodoAppEvents.user, .restored): self = .userRestored(id: id)
        case (TodoAppEvents.todo, .created(let values)):
            typealias Fields = TodoAppEvents.Todos
            guard let title = values.text(Fields.title), let deadline = values.day(Fields.deadline) else { return nil }
            self = .todoCreated(id: id, title: title, deadline: deadline, userId: values.id(Fields.userId),
                                memo: values.text(Fields.memo))
        case (TodoAppEvents.todo, .updated(let values)):
            typealias Fields = TodoAppEvents.Todos
            self = .todoUpdated(id: id, title: values.text(Fields.title), deadline: values.day(Fields.deadline),
                                memo: values.text(Fields.memo))
        case (TodoAppEvents.todo, .set(_, let on)): self = on ? .todoCompleted(id: id) : .todoReopened(id: id)
        case (TodoAppEvents.todo, .added(_, let tag)): self = .todoTagged(id: id, tagId: tag)
        case (TodoAppEvents.todo, .removed(_, let tag)): self = .todoUntagged(id: id, tagId: tag)
        case (TodoAppEvents.todo, .deleted): self = .todoDeleted(id: id)
        case (TodoAppEvents.todo, .restored): self = .todoRestored(id: id)
        case (TodoAppEvents.tag, .created(let values)):
            typealias Fields = TodoAppEvents.Tags
            guard let name = values.text(Fields.name), let color = values.text(Fields.color) else { return nil }
            self = .tagCreated(id: id, name: name, color: color)
        case (TodoAppEvents.tag, .updated(let values)):
            typealias Fields = TodoAppEvents.Tags
            self = .tagUpdated(id: id, name: values.text(Fields.name), color: values.text(Fields.color))
        case (TodoAppEvents.tag, .deleted): self = .tagDeleted(id: id)
        case (TodoAppEvents.tag, .restored): self = .tagRestored(id: id)
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

extension DomainEvent {
    /// The version of the data's shape ``encodedData()`` writes, as the model's decider writes
    /// it: the entity's (``ChronicleModel/Entity/eventSchemaVersion``) for a creation or an
    /// update, whose data gives fields; 1 for the others.
    public var schemaVersion: UInt16 {
        switch self {
        case .userCreated, .userUpdated: TodoAppEvents.schemaVersion(place: TodoAppEvents.user)
        case .todoCreated, .todoUpdated: TodoAppEvents.schemaVersion(place: TodoAppEvents.todo)
        case .tagCreated, .tagUpdated: TodoAppEvents.schemaVersion(place: TodoAppEvents.tag)
        default: 1
        }
    }
}

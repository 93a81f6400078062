import Foundation
import ChronicleSchema
import UUIDText

// MARK: - Encoding

extension DomainEvent {
    /// The event's `data` as a JSON object: keys sorted, no whitespace,
    /// absent optionals omitted, ids lowercase.
    ///
    /// The bytes are deterministic, so hashing them is stable:
    ///
    /// ```swift
    /// DomainEvent.todoCreated(id: id, title: "Pay rent", deadline: day, userId: nil, memo: nil)
    ///     .encodedData()    // {"deadline":"2026-03-01","title":"Pay rent"}
    /// DomainEvent.userDeleted(id: id).encodedData()   // {}
    /// DomainEvent.tagCreated(id: id, name: "Work", color: "#1a2b3c")
    ///     .encodedData()    // {"color":"#1a2b3c","name":"Work"}
    /// DomainEvent.todoTagged(id: todo, tagId: tag).encodedData()   // {"tagId":"3c4d…"}
    /// ```
    public func encodedData() -> Data {
        var writer = JSONObjectWriter()
        switch self {
        case .userCreated(_, let name, let age):
            writer.write(Key.age, age)
            writer.write(Key.name, name)
        case .userUpdated(_, let name, let age):
            writer.writeIfPresent(Key.age, age)
            writer.writeIfPresent(Key.name, name)
        case .todoCreated(_, let title, let deadline, let userId, let memo):
            writer.write(Key.deadline, deadline.description)
            writer.writeIfPresent(Key.memo, memo)
            writer.write(Key.title, title)
            writer.writeIfPresent(Key.userId, userId?.lowercasedString)
        case .todoUpdated(_, let title, let deadline, let memo):
            writer.writeIfPresent(Key.deadline, deadline?.description)
            writer.writeIfPresent(Key.memo, memo)
            writer.writeIfPresent(Key.title, title)
        case .tagCreated(_, let name, let color):
            writer.write(Key.color, color)
            writer.write(Key.name, name)
        case .tagUpdated(_, let name, let color):
            writer.writeIfPresent(Key.color, color)
            writer.writeIfPresent(Key.name, name)
        case .todoTagged(_, let tagId), .todoUntagged(_, let tagId):
            writer.write(Key.tagId, tagId.lowercasedString)
        case .userDeleted, .todoCompleted, .todoReopened, .todoDeleted, .tagDeleted,
             .userRestored, .todoRestored, .tagRestored:
            break
        }
        return writer.finish()
    }

    private enum Key {
        static let age = "age"
        static let name = "name"
        static let deadline = "deadline"
        static let memo = "memo"
        static let title = "title"
        static let userId = "userId"
        static let color = "color"
        static let tagId = "tagId"
    }
}

// MARK: - Decoding

extension DomainEvent {
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
    /// let event = try DomainEvent(type: "UserCreated", stream: "user-\(id.lowercasedString)",
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
                        try DomainEvent(type: UnsafeRawBufferPointer(type), stream: UnsafeRawBufferPointer(stream), data: data,
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
            read = try TodoAppEvents.reader.readPlaced(type: type, stream: stream, data: data, schemaVersion: Int(schemaVersion))
        } catch {
            throw .invalidEvent(error.description)
        }
        guard let event = DomainEvent(read.event, place: read.place) else {
            throw .invalidEvent("\(read.event.type) is not an event of the todo app")
        }
        self = event
    }

    /// Quotes untrusted text for a message: one line, bounded length, as the model's reader
    /// quotes the names it reads.
    static func quoted(_ text: String) -> String {
        ChronicleModel.EventProblem.quotedName(text)
    }
}

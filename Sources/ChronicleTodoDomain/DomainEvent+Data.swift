import Foundation
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
    /// Decodes a stored event from its envelope's `type`, `stream` and `data`.
    ///
    /// Checks that the type is known, that the stream is the canonical
    /// `user-<lowercase uuid>` / `todo-<lowercase uuid>` / `tag-<lowercase uuid>`
    /// for that type, and that `data` is one strictly valid JSON object (RFC
    /// 8259, UTF-8, no duplicate keys, at most 128 levels; read by JSONText's `JSONScanner`, as the
    /// wire protocol is) with the required
    /// fields of the right JSON types. Integers must be written as integers
    /// (`36`, not `36.0`). Unknown keys are ignored (forward compatibility);
    /// `null` counts as absent for optional fields. Business rules (name
    /// length, age range, tag colour, unique tag names) are not re-checked: a
    /// stored event is a fact. `tagId` is the exception where spelling matters:
    /// it must be a lowercase UUID, like the ids in stream names, because read
    /// models key by it.
    ///
    /// ```swift
    /// let event = try DomainEvent(type: "UserCreated", stream: "user-\(id.lowercasedString)",
    ///                             data: Data(#"{"age":36,"name":"Ada"}"#.utf8))
    /// ```
    /// - throws: ``DomainError/invalidEvent(_:)`` saying what is wrong; never traps,
    ///   whatever the bytes.
    ///
    /// `schemaVersion` is the version of `data`'s shape (the event's record says it; 1 for an
    /// event written before versions existed): an older shape is upcast first (``EventSchema``).
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
        guard let eventType = KnownType(type) else {
            throw .invalidEvent("unknown event type \(Self.quoted(String(decoding: type, as: UTF8.self)))")
        }
        let knownType = eventType.name
        let prefix = eventType.entityKind.streamPrefix
        guard let id = Self.entityID(inStream: stream, prefix: prefix) else {
            throw .invalidEvent(
                "\(knownType) stream \(Self.quoted(String(decoding: stream, as: UTF8.self))) is not '\(prefix)<lowercase uuid>'")
        }

        var fields: EventFields
        do {
            fields = EventFields(type: knownType, members: try JSONObjectReader.members(of: data))
        } catch {
            throw .invalidEvent("\(knownType) data \(error.message)")
        }
        fields.members = try EventSchema.upcast(fields.members, type: knownType, from: schemaVersion)

        switch eventType {
        case .userCreated:
            self = .userCreated(id: id, name: try fields.string("name"), age: try fields.integer("age"))
        case .userUpdated:
            self = .userUpdated(id: id, name: try fields.optionalString("name"), age: try fields.optionalInteger("age"))
        case .userDeleted:
            self = .userDeleted(id: id)
        case .userRestored:
            self = .userRestored(id: id)
        case .todoCreated:
            self = .todoCreated(
                id: id, title: try fields.string("title"), deadline: try fields.day("deadline"),
                userId: try fields.optionalUUID("userId"), memo: try fields.optionalString("memo"))
        case .todoUpdated:
            self = .todoUpdated(
                id: id, title: try fields.optionalString("title"), deadline: try fields.optionalDay("deadline"),
                memo: try fields.optionalString("memo"))
        case .todoCompleted:
            self = .todoCompleted(id: id)
        case .todoReopened:
            self = .todoReopened(id: id)
        case .todoDeleted:
            self = .todoDeleted(id: id)
        case .todoRestored:
            self = .todoRestored(id: id)
        case .tagCreated:
            self = .tagCreated(id: id, name: try fields.string("name"), color: try fields.string("color"))
        case .tagUpdated:
            self = .tagUpdated(
                id: id, name: try fields.optionalString("name"), color: try fields.optionalString("color"))
        case .tagDeleted:
            self = .tagDeleted(id: id)
        case .tagRestored:
            self = .tagRestored(id: id)
        case .todoTagged:
            self = .todoTagged(id: id, tagId: try fields.lowercaseUUID("tagId"))
        case .todoUntagged:
            self = .todoUntagged(id: id, tagId: try fields.lowercaseUUID("tagId"))
        }
    }

    /// The id in a canonical stream name, or nil if the name is not canonical.
    private static func entityID(inStream stream: UnsafeRawBufferPointer, prefix: String) -> UUID? {
        let prefixLength = prefix.utf8.count
        guard stream.count == prefixLength + 36,
              prefix.sameBytes(as: UnsafeRawBufferPointer(rebasing: stream[..<prefixLength])) else { return nil }
        return UUID(canonical: UnsafeRawBufferPointer(rebasing: stream[prefixLength...]))
    }

    /// Quotes untrusted text for a message: one line, bounded length.
    static func quoted(_ text: String) -> String {
        let limit = 80
        let shown = text.count > limit ? String(text.prefix(limit)) + "…" : text
        let oneLine = String(String.UnicodeScalarView(shown.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control
                || scalar == "\u{2028}" || scalar == "\u{2029}" ? "?" : scalar
        }))
        return "'\(oneLine)'"
    }
}

// MARK: - Types

/// The event types as decoding tells them apart: found once per event by the bytes of their
/// names, then switched on by case. A switch over the names compared strings again, up to
/// sixteen of them; a search through ``DomainEvent/allTypes`` compared each small string
/// byte by byte.
private enum KnownType: Int, CaseIterable {
    // In the order of `DomainEvent.allTypes`, whose names they are.
    case userCreated, userUpdated, userDeleted, userRestored
    case todoCreated, todoUpdated, todoCompleted, todoReopened, todoDeleted, todoRestored
    case tagCreated, tagUpdated, tagDeleted, tagRestored, todoTagged, todoUntagged

    private static let names: [[UInt8]] = DomainEvent.allTypes.map { Array($0.utf8) }
    private static let kinds: [EntityKind] = DomainEvent.allTypes.map(EntityKind.init(knownType:))

    /// The type named by `bytes` (UTF-8), nil for none.
    init?(_ bytes: UnsafeRawBufferPointer) {
        let index = Self.names.firstIndex { name in
            name.count == bytes.count && name.withUnsafeBytes { memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }
        }
        guard let index else { return nil }
        self.init(rawValue: index)
    }

    var name: String { DomainEvent.allTypes[rawValue] }

    var entityKind: EntityKind { Self.kinds[rawValue] }
}

// MARK: - Fields

/// Typed access to the members of an event's `data`, with messages that
/// name the event type and the field. `null` counts as absent for optionals.
private struct EventFields {
    let type: String
    var members: JSONObjectReader.Members

    func string(_ key: String) throws(DomainError) -> String {
        guard let value = try optionalString(key) else { throw missing(key) }
        return value
    }

    func optionalString(_ key: String) throws(DomainError) -> String? {
        switch present(key) {
        case nil: return nil
        case .string(let text): return text
        case let other?: throw wrongKind(key, expected: "a string", got: other)
        }
    }

    func integer(_ key: String) throws(DomainError) -> Int {
        guard let value = try optionalInteger(key) else { throw missing(key) }
        return value
    }

    func optionalInteger(_ key: String) throws(DomainError) -> Int? {
        switch present(key) {
        case nil:
            return nil
        case .number(let literal):
            guard !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else {
                throw invalid(key, "must be an integer (got \(DomainEvent.quoted(literal)))")
            }
            guard let value = Int(literal) else {
                throw invalid(key, "is out of range for a 64-bit integer (got \(DomainEvent.quoted(literal)))")
            }
            return value
        case let other?:
            throw wrongKind(key, expected: "an integer", got: other)
        }
    }

    func day(_ key: String) throws(DomainError) -> CalendarDay {
        guard let value = try optionalDay(key) else { throw missing(key) }
        return value
    }

    func optionalDay(_ key: String) throws(DomainError) -> CalendarDay? {
        guard let text = try optionalString(key) else { return nil }
        do {
            return try CalendarDay(parsing: text)
        } catch {
            throw invalid(key, "must be a real calendar day as YYYY-MM-DD (got \(DomainEvent.quoted(text)))")
        }
    }

    func optionalUUID(_ key: String) throws(DomainError) -> UUID? {
        guard let text = try optionalString(key) else { return nil }
        guard let id = UUID(hyphenated: text) else {
            throw invalid(key, "must be a UUID (got \(DomainEvent.quoted(text)))")
        }
        return id
    }

    /// A required UUID spelled exactly as Chronicle writes it (lowercase,
    /// hyphenated), so one id never has two keys in a read model.
    func lowercaseUUID(_ key: String) throws(DomainError) -> UUID {
        let text = try string(key)
        guard let id = UUID(canonical: text) else {
            throw invalid(key, "must be a lowercase UUID (got \(DomainEvent.quoted(text)))")
        }
        return id
    }

    /// The member's value, or nil when absent or `null`.
    private func present(_ key: String) -> JSONObjectReader.Value? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    private func missing(_ key: String) -> DomainError {
        members[key] == .null
            ? invalid(key, "must not be null")
            : .invalidEvent("\(type) data is missing '\(key)'")
    }

    private func wrongKind(_ key: String, expected: String, got value: JSONObjectReader.Value) -> DomainError {
        invalid(key, "must be \(expected) (got \(value.kind))")
    }

    private func invalid(_ key: String, _ problem: String) -> DomainError {
        .invalidEvent("\(type) data field '\(key)' \(problem)")
    }
}

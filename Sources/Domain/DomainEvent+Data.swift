import Foundation

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
        case .userDeleted, .todoCompleted, .todoReopened, .todoDeleted:
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
    }
}

// MARK: - Decoding

extension DomainEvent {
    /// Decodes a stored event from its envelope's `type`, `stream` and `data`.
    ///
    /// Checks that the type is known, that the stream is the canonical
    /// `user-<lowercase uuid>` / `todo-<lowercase uuid>` for that type, and that
    /// `data` is a JSON object with the required fields of the right JSON types.
    /// Unknown keys are ignored (forward compatibility); `null` counts as absent
    /// for optional fields. Business rules (name length, age range) are not
    /// re-checked: a stored event is a fact.
    ///
    /// ```swift
    /// let event = try DomainEvent(type: "UserCreated", stream: "user-\(id.lowercasedString)",
    ///                             data: Data(#"{"age":36,"name":"Ada"}"#.utf8))
    /// ```
    /// - throws: ``DomainError/invalidEvent(_:)`` saying what is wrong; never traps,
    ///   whatever the bytes.
    public init(type: String, stream: String, data: Data) throws(DomainError) {
        guard let knownType = Self.allTypes.first(where: { $0.utf8.elementsEqual(type.utf8) }) else {
            throw .invalidEvent("unknown event type \(Self.quoted(type))")
        }
        let isUserType = knownType.hasPrefix("User")
        let prefix = isUserType ? Self.userStreamPrefix : Self.todoStreamPrefix
        guard let id = Self.entityID(inStream: stream, prefix: prefix) else {
            throw .invalidEvent(
                "\(knownType) stream \(Self.quoted(stream)) is not '\(prefix)<lowercase uuid>'")
        }

        do {
            switch knownType {
            case "UserCreated":
                let fields = try Self.decoder.decode(UserCreatedData.self, from: data)
                self = .userCreated(id: id, name: fields.name, age: fields.age)
            case "UserUpdated":
                let fields = try Self.decoder.decode(UserUpdatedData.self, from: data)
                self = .userUpdated(id: id, name: fields.name, age: fields.age)
            case "UserDeleted":
                _ = try Self.decoder.decode(EmptyData.self, from: data)
                self = .userDeleted(id: id)
            case "TodoCreated":
                let fields = try Self.decoder.decode(TodoCreatedData.self, from: data)
                self = .todoCreated(
                    id: id, title: fields.title, deadline: fields.deadline,
                    userId: fields.userId, memo: fields.memo)
            case "TodoUpdated":
                let fields = try Self.decoder.decode(TodoUpdatedData.self, from: data)
                self = .todoUpdated(id: id, title: fields.title, deadline: fields.deadline, memo: fields.memo)
            case "TodoCompleted":
                _ = try Self.decoder.decode(EmptyData.self, from: data)
                self = .todoCompleted(id: id)
            case "TodoReopened":
                _ = try Self.decoder.decode(EmptyData.self, from: data)
                self = .todoReopened(id: id)
            default:
                _ = try Self.decoder.decode(EmptyData.self, from: data)
                self = .todoDeleted(id: id)
            }
        } catch let error as DecodingError {
            throw .invalidEvent("\(knownType) data \(Self.explain(error))")
        } catch {
            throw .invalidEvent("\(knownType) data could not be decoded: \(error)")
        }
    }

    private static let decoder = JSONDecoder()

    /// The id in a canonical stream name, or nil if the name is not canonical.
    private static func entityID(inStream stream: String, prefix: String) -> UUID? {
        guard stream.utf8.starts(with: prefix.utf8),
              let id = UUID(uuidString: String(decoding: stream.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)),
              stream.utf8.elementsEqual((prefix + id.lowercasedString).utf8)
        else { return nil }
        return id
    }

    /// Turns a decoding error into the end of a one-line message.
    private static func explain(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _):
            return "is missing '\(key.stringValue)'"
        case .valueNotFound(_, let context):
            return "field '\(path(context))' must not be null"
        case .typeMismatch(let expected, let context):
            if context.codingPath.isEmpty { return "must be a JSON object" }
            return "field '\(path(context))' must be \(jsonTypeName(expected))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "is not valid JSON" }
            return "field '\(path(context))' is invalid: \(oneLine(context.debugDescription))"
        @unknown default:
            return "could not be decoded: \(oneLine(String(describing: error)))"
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        oneLine(context.codingPath.map(\.stringValue).joined(separator: "."))
    }

    private static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "an integer"
        case is Bool.Type: "a boolean"
        default: "of type \(type)"
        }
    }

    /// Quotes untrusted text for a message: one line, bounded length.
    static func quoted(_ text: String) -> String {
        let limit = 80
        let shown = text.count > limit ? String(text.prefix(limit)) + "…" : text
        return "'\(oneLine(shown))'"
    }

    private static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control
                || scalar == "\u{2028}" || scalar == "\u{2029}" ? "?" : scalar
        }))
    }
}

// MARK: - Data shapes

/// `{"name","age"}`, both required.
private struct UserCreatedData: Decodable {
    var name: String
    var age: Int
}

/// Any of `{"name","age"}`.
private struct UserUpdatedData: Decodable {
    var name: String?
    var age: Int?
}

/// `{"title","deadline"}` required, `"userId"` and `"memo"` optional.
private struct TodoCreatedData: Decodable {
    var title: String
    var deadline: CalendarDay
    var userId: UUID?
    var memo: String?

    private enum CodingKeys: String, CodingKey {
        case title, deadline, userId, memo
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        deadline = try container.decode(CalendarDay.self, forKey: .deadline)
        userId = try container.decodeUUIDIfPresent(forKey: .userId)
        memo = try container.decodeIfPresent(String.self, forKey: .memo)
    }
}

/// Any of `{"title","deadline","memo"}`.
private struct TodoUpdatedData: Decodable {
    var title: String?
    var deadline: CalendarDay?
    var memo: String?
}

/// `{}`: must still be a JSON object; keys are ignored.
private struct EmptyData: Decodable {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: AnyKey.self)
    }
}

import Foundation
import UUIDText

/// Something to do by a given day, optionally owned by a ``User``.
///
/// A plain value: the rules (trimmed non-empty title of at most
/// ``maxTitleLength`` characters, a live owner, live tags) are enforced by
/// the todo app's commands: the values by ``TodoAppInput``, the rest by its model.
///
/// ```swift
/// let todo = Todo(id: UUID(), title: "File taxes",
///                 deadline: try CalendarDay(parsing: "2026-04-15"))
/// // JSON: {"id":"…","title":"File taxes","deadline":"2026-04-15",
/// //        "userId":null,"memo":null,"isCompleted":false,"tags":[]}
/// ```
public struct Todo: Sendable, Equatable, Hashable, Codable, Identifiable {
    public var id: UUID
    /// What is to be done.
    public var title: String
    /// The day the todo is due.
    public var deadline: CalendarDay
    /// The id of the user who owns the todo; nil when nobody does.
    public var userId: UUID?
    /// A free-text note; nil when there is none.
    public var memo: String?
    /// Whether the todo is done.
    public var isCompleted: Bool
    /// The ids of the todo's live tags, in ``sortedTagIDs(_:)`` order.
    ///
    /// Which tags are live is not in the todo's stream: read models fill this
    /// in from the tags' own.
    public var tags: [UUID]

    /// The longest title accepted, in `Character`s after trimming.
    public static let maxTitleLength = 500

    /// Makes a todo from its parts, unchecked: commands enforce the rules.
    public init(
        id: UUID, title: String, deadline: CalendarDay,
        userId: UUID? = nil, memo: String? = nil, isCompleted: Bool = false, tags: [UUID] = []
    ) {
        self.id = id
        self.title = title
        self.deadline = deadline
        self.userId = userId
        self.memo = memo
        self.isCompleted = isCompleted
        self.tags = tags
    }

    /// What a written memo leaves on a todo: the empty memo is no memo (nil), so writing
    /// `""` clears it (how `todo update --memo ""` and the undo of a first memo remove one).
    ///
    /// ```swift
    /// Todo.memo(written: "")          // nil
    /// Todo.memo(written: "chapter 2") // "chapter 2"
    /// ```
    public static func memo(written: String) -> String? { written.isEmpty ? nil : written }

    /// Tag ids in the one order every todo lists them: by lowercase string.
    ///
    /// ```swift
    /// Todo.sortedTagIDs([b, a])   // [a, b] when a.lowercasedString < b.lowercasedString
    /// ```
    public static func sortedTagIDs(_ ids: some Sequence<UUID>) -> [UUID] {
        ids.map { (id: $0, text: $0.lowercasedString) }
            .sorted { $0.text < $1.text }
            .map(\.id)
    }

    private enum CodingKeys: String, CodingKey {
        case id, title, deadline, userId, memo, isCompleted, tags
    }

    /// Reads the JSON shape; `userId` and `memo` may be `null` or absent, and
    /// `tags` absent or `null` means none (JSON written before tags existed).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decodeUUID(forKey: .id)
        self.title = try container.decode(String.self, forKey: .title)
        self.deadline = try container.decode(CalendarDay.self, forKey: .deadline)
        self.userId = try container.decodeUUIDIfPresent(forKey: .userId)
        self.memo = try container.decodeIfPresent(String.self, forKey: .memo)
        self.isCompleted = try container.decode(Bool.self, forKey: .isCompleted)
        self.tags = try container.decodeUUIDsIfPresent(forKey: .tags) ?? []
    }

    /// Writes all seven keys; absent `userId`/`memo` become explicit `null`
    /// so every todo has the same shape for scripts; `tags` is a list of
    /// lowercase ids, `[]` when none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id.lowercasedString, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(deadline, forKey: .deadline)
        if let userId {
            try container.encode(userId.lowercasedString, forKey: .userId)
        } else {
            try container.encodeNil(forKey: .userId)
        }
        if let memo {
            try container.encode(memo, forKey: .memo)
        } else {
            try container.encodeNil(forKey: .memo)
        }
        try container.encode(isCompleted, forKey: .isCompleted)
        try container.encode(tags.map(\.lowercasedString), forKey: .tags)
    }
}

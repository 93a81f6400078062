import Foundation

/// The state of one user, folded from that user's stream.
///
/// Commands decide against it, so an unknown or deleted user can be told
/// apart. A deleted user ignores every event of its stream but a restoration,
/// which brings it back as it was when deleted.
///
/// ```swift
/// var aggregate = UserAggregate()
/// aggregate.apply(.userCreated(id: id, name: "Ada", age: 36))
/// aggregate.apply(.userDeleted(id: id))
/// aggregate.isLive        // false
/// aggregate.user?.name    // "Ada" (last known state is kept)
/// ```
public struct UserAggregate: Sendable, Equatable {
    /// The last known state; still set after deletion, nil before creation.
    public private(set) var user: User?
    /// Whether a `UserDeleted` has been applied.
    public private(set) var isDeleted: Bool

    /// Whether the user exists and is not deleted.
    public var isLive: Bool { user != nil && !isDeleted }

    /// An aggregate for a stream with no events yet.
    public init() {
        user = nil
        isDeleted = false
    }

    /// Folds one event in.
    ///
    /// Ignores todo and tag events, events about another user, events before the
    /// user's creation, a second creation, and anything but a restoration while deleted.
    public mutating func apply(_ event: DomainEvent) {
        if isDeleted {
            if case .userRestored(let id) = event, user?.id == id { isDeleted = false }
            return
        }
        switch event {
        case .userCreated(let id, let name, let age):
            guard user == nil else { return }
            user = User(id: id, name: name, age: age)
        case .userUpdated(let id, let name, let age):
            guard var current = user, current.id == id else { return }
            if let name { current.name = name }
            if let age { current.age = age }
            user = current
        case .userDeleted(let id):
            guard let current = user, current.id == id else { return }
            isDeleted = true
        case .userRestored, .todoCreated, .todoUpdated, .todoCompleted, .todoReopened, .todoDeleted, .todoRestored,
             .todoTagged, .todoUntagged, .tagCreated, .tagUpdated, .tagDeleted, .tagRestored:
            return
        }
    }
}

extension UserAggregate {
    /// Throws unless this aggregate holds the live user `id`.
    func requireLive(id: UUID) throws(DomainError) {
        guard let user, user.id == id else { throw .unknownUser(id) }
        guard !isDeleted else { throw .userDeleted(id) }
    }
}

import Foundation

/// The versions of the events' data shapes, and the upcasters that read an older shape as
/// the current one.
///
/// Each event records the schema version of its type that its writer used
/// (`RecordedEvent.schemaVersion`; 1 for every event written before versions existed).
/// Decoding an event of an older version runs the upcasters from that version up, before
/// any projection or command sees it; the stored bytes never change, so the hash chain stays
/// valid and an old event reads the same in every later release. Each upcaster is a pure
/// function from one version's members to the next's.
///
/// | type | version | shape |
/// |---|---|---|
/// | `TagCreated`, `TagUpdated` | 1 | `name` as typed (trimmed) |
/// | `TagCreated`, `TagUpdated` | 2 | `name` in Unicode canonical composition (NFC) |
///
/// ```swift
/// EventSchema.currentVersion(of: "TagCreated")   // 2
/// EventSchema.currentVersion(of: "TodoCreated")  // 1
/// ```
public enum EventSchema {
    /// One step of a type's shape: reads version `from` and gives version `from + 1`.
    struct Upcaster: Sendable {
        let type: String
        let from: UInt16
        let upcast: @Sendable (JSONObjectReader.Members) -> JSONObjectReader.Members
    }

    /// Every upcaster, for every type and version.
    static let upcasters: [Upcaster] = [
        Upcaster(type: "TagCreated", from: 1, upcast: composedName),
        Upcaster(type: "TagUpdated", from: 1, upcast: composedName),
    ]

    /// The version of `type`'s shape this code writes (1 for a type whose shape never changed).
    public static func currentVersion(of type: String) -> UInt16 {
        // Without arrays: every event decoded asks.
        upcasters.reduce(1) { current, upcaster in upcaster.type == type ? max(current, upcaster.from + 1) : current }
    }

    /// `members` of a `type` event at `version`, upcast to the current version.
    /// - throws: ``DomainError/invalidEvent(_:)`` for a version this code does not know (0, or newer).
    static func upcast(_ members: JSONObjectReader.Members, type: String,
                       from version: UInt16) throws(DomainError) -> JSONObjectReader.Members {
        let current = currentVersion(of: type)
        guard version >= 1 else { throw .invalidEvent("\(type) schema version 0 is not valid") }
        guard version <= current else {
            throw .invalidEvent("\(type) data of schema version \(version) is newer than this chronicle reads (\(current)): upgrade chronicle")
        }
        if version == current { return members }
        var members = members
        for step in version..<current {
            guard let upcaster = upcasters.first(where: { $0.type == type && $0.from == step }) else { continue }
            members = upcaster.upcast(members)
        }
        return members
    }

    /// Tag names, version 1 → 2: stored as typed, then in NFC, so that "É" typed as one
    /// character or as "E" and a combining accent is one name, byte for byte, on every device.
    static func composedName(_ members: JSONObjectReader.Members) -> JSONObjectReader.Members {
        guard case .string(let name)? = members["name"] else { return members }
        var upcast = members
        upcast["name"] = .string(name.precomposedStringWithCanonicalMapping)
        return upcast
    }
}

extension DomainEvent {
    /// The schema version of this event's type that ``encodedData()`` writes.
    public var schemaVersion: UInt16 { EventSchema.currentVersion(of: type) }
}

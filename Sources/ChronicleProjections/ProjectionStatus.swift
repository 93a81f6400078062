/// Where one projection stands.
public struct ProjectionStatus: Sendable, Equatable {
    /// Which projection this is.
    public var name: ProjectionName
    /// The last log position applied.
    public var checkpoint: UInt64
    /// The projection version that built the stored model.
    public var builtByVersion: UInt32
    /// The projection version of this code.
    public var codeVersion: UInt32
    /// How many times the model was swapped in by a rebuild, plus one.
    public var generation: UInt64
    /// Events the projection skipped (unknown type or undecodable data).
    public var skippedEvents: UInt64
    /// The position a rebuild in progress (or one that was interrupted) has reached.
    public var rebuildCheckpoint: UInt64?
    /// Entities (users, todos or days) in the model.
    public var entries: Int

    /// The model was built by an older version and will be rebuilt.
    public var needsRebuild: Bool { builtByVersion < codeVersion }
}

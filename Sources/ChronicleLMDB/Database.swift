import CLMDB

/// A handle to one named database inside an ``Environment``.
///
/// Handles are plain numbers, valid for the life of the environment and usable from
/// any thread once opened.
public struct Database: Sendable, Hashable {
    let dbi: MDB_dbi
    /// The name it was opened with (`nil` for the main database).
    public let name: String?
}

/// Flags for ``Transaction/put(_:key:value:flags:)``.
public struct PutFlags: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Fail with ``LMDBError/keyExists`` instead of overwriting.
    public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))
    /// The key sorts after every existing key: LMDB skips the search (fast bulk load).
    public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
}

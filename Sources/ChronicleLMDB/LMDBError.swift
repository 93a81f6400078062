import CLMDB

/// An error reported by LMDB, one case per `MDB_*` return code the wrapper can see.
///
/// Every failing LMDB call is turned into one of these, so callers can react to the
/// conditions that matter (a full map, a resized map, a full reader table) and print
/// the rest as a clear message.
public enum LMDBError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `MDB_KEYEXIST`: the key is already stored and the write may not replace it.
    case keyExists
    /// `MDB_NOTFOUND`: the key is not stored, or a cursor has no more entries.
    case notFound
    /// `MDB_PAGE_NOTFOUND`: a page the data needs is missing (usually a damaged file).
    case pageNotFound
    /// `MDB_CORRUPTED`: a page found has the wrong type (the file is damaged).
    case corrupted
    /// `MDB_PANIC`: the environment had a fatal error, such as a failed meta page update.
    case panic
    /// `MDB_VERSION_MISMATCH`: the environment was written by another LMDB version.
    case versionMismatch
    /// `MDB_INVALID`: the file is not an LMDB file.
    case invalidFile
    /// `MDB_MAP_FULL`: the map is full at its current size.
    case mapFull
    /// `MDB_DBS_FULL`: the environment holds its most named databases (see `Environment.Options.maxDatabases`).
    case databasesFull
    /// `MDB_READERS_FULL`: the reader lock table is full (see `Environment.Options.maxReaders`).
    case readersFull
    /// `MDB_TLS_FULL`: too many thread-local storage keys are in use.
    case tlsFull
    /// `MDB_TXN_FULL`: the write transaction has too many dirty pages.
    case transactionFull
    /// `MDB_CURSOR_FULL`: a cursor stack is too deep (an LMDB internal error).
    case cursorFull
    /// `MDB_PAGE_FULL`: a page has not enough room (an LMDB internal error).
    case pageFull
    /// `MDB_MAP_RESIZED`: the data grew beyond the map size (another process grew the map).
    case mapResized
    /// `MDB_INCOMPATIBLE`: the operation does not fit the database (its flags or type differ).
    case incompatible
    /// `MDB_BAD_RSLOT`: a reader lock table slot was reused wrongly.
    case badReaderSlot
    /// `MDB_BAD_TXN`: the transaction must abort, has a child, or is invalid.
    case badTransaction
    /// `MDB_BAD_VALSIZE`: a key, value or database name has an unsupported size (such as a key too long).
    case badValueSize
    /// `MDB_BAD_DBI`: the database handle was changed unexpectedly.
    case badDatabase
    /// A system error (`errno`), such as `ENOENT`, `EACCES` or `ENOSPC`.
    case system(Int32)
    /// The data file is shorter than the pages its last commit uses (a cut copy, a damaged
    /// disk); found by ``Environment`` on open, never by LMDB itself.
    case truncated(fileBytes: Int, expectedBytes: Int)

    /// Maps an LMDB return code (never `MDB_SUCCESS`) to its case.
    public init(code: Int32) {
        switch code {
        case MDB_KEYEXIST: self = .keyExists
        case MDB_NOTFOUND: self = .notFound
        case MDB_PAGE_NOTFOUND: self = .pageNotFound
        case MDB_CORRUPTED: self = .corrupted
        case MDB_PANIC: self = .panic
        case MDB_VERSION_MISMATCH: self = .versionMismatch
        case MDB_INVALID: self = .invalidFile
        case MDB_MAP_FULL: self = .mapFull
        case MDB_DBS_FULL: self = .databasesFull
        case MDB_READERS_FULL: self = .readersFull
        case MDB_TLS_FULL: self = .tlsFull
        case MDB_TXN_FULL: self = .transactionFull
        case MDB_CURSOR_FULL: self = .cursorFull
        case MDB_PAGE_FULL: self = .pageFull
        case MDB_MAP_RESIZED: self = .mapResized
        case MDB_INCOMPATIBLE: self = .incompatible
        case MDB_BAD_RSLOT: self = .badReaderSlot
        case MDB_BAD_TXN: self = .badTransaction
        case MDB_BAD_VALSIZE: self = .badValueSize
        case MDB_BAD_DBI: self = .badDatabase
        default: self = .system(code)
        }
    }

    /// The raw LMDB (or `errno`) code.
    public var code: Int32 {
        switch self {
        case .keyExists: MDB_KEYEXIST
        case .notFound: MDB_NOTFOUND
        case .pageNotFound: MDB_PAGE_NOTFOUND
        case .corrupted: MDB_CORRUPTED
        case .panic: MDB_PANIC
        case .versionMismatch: MDB_VERSION_MISMATCH
        case .invalidFile: MDB_INVALID
        case .mapFull: MDB_MAP_FULL
        case .databasesFull: MDB_DBS_FULL
        case .readersFull: MDB_READERS_FULL
        case .tlsFull: MDB_TLS_FULL
        case .transactionFull: MDB_TXN_FULL
        case .cursorFull: MDB_CURSOR_FULL
        case .pageFull: MDB_PAGE_FULL
        case .mapResized: MDB_MAP_RESIZED
        case .incompatible: MDB_INCOMPATIBLE
        case .badReaderSlot: MDB_BAD_RSLOT
        case .badTransaction: MDB_BAD_TXN
        case .badValueSize: MDB_BAD_VALSIZE
        case .badDatabase: MDB_BAD_DBI
        case .system(let code): code
        case .truncated: MDB_CORRUPTED
        }
    }

    public var description: String {
        let message = String(cString: mdb_strerror(code))
        switch self {
        case .corrupted, .pageNotFound, .invalidFile, .panic:
            return "the store's LMDB file is damaged (\(message))"
        case .badTransaction:
            // The wrapper never reuses a failed transaction: LMDB reports this after a page
            // read failed inside a call that returns no error (opening a cursor).
            return "the store's LMDB file is damaged, LMDB stopped the transaction (\(message))"
        case .versionMismatch, .incompatible:
            return "the store was written by an incompatible LMDB (\(message))"
        case .readersFull:
            return "too many open readers on the store (\(message))"
        case let .truncated(fileBytes, expectedBytes):
            return "the store's LMDB file is damaged: it is truncated to \(fileBytes) bytes, its last commit needs \(expectedBytes)"
        default:
            return "LMDB: \(message)"
        }
    }
}

/// Throws the matching ``LMDBError`` when `code` is not `MDB_SUCCESS`.
@inline(__always)
func check(_ code: Int32) throws(LMDBError) {
    if code != MDB_SUCCESS { throw LMDBError(code: code) }
}

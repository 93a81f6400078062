import CLMDB

/// An error reported by LMDB, one case per `MDB_*` return code the wrapper can see.
///
/// Every failing LMDB call is turned into one of these, so callers can react to the
/// conditions that matter (a full map, a resized map, a full reader table) and print
/// the rest as a clear message.
public enum LMDBError: Error, Equatable, Sendable, CustomStringConvertible {
    case keyExists
    case notFound
    case pageNotFound
    case corrupted
    case panic
    case versionMismatch
    case invalidFile
    case mapFull
    case databasesFull
    case readersFull
    case tlsFull
    case transactionFull
    case cursorFull
    case pageFull
    case mapResized
    case incompatible
    case badReaderSlot
    case badTransaction
    case badValueSize
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

import Foundation
import ChronicleLMDB

/// Whether an entity may be stored in a model's databases keyed by its 16-byte id (after a
/// prefix of the table's, if any), answered without a lookup for an id above the largest of
/// their keys.
///
/// Entity ids are UUIDv7, ordered by creation time, so the entities a batch creates sort after
/// every one stored before it: a rebuild or a catch-up folding them looks up nothing (it used
/// to search each database for every todo created). The ceiling is read once, at the first
/// question; it holds while the databases are not written, that is during a batch's fold
/// (a projection writes them in `finish`).
///
/// Thread rules: one batch's, on the thread of its write transaction.
final class StoredIDCeiling {
    /// A table holding ids: the keys that begin with `prefix`, each the prefix and an id.
    struct Table {
        let database: Database
        let prefix: [UInt8]
    }

    private let txn: Transaction
    private let tables: [Table]
    /// The largest id, once read (`.some(nil)`: the tables hold none).
    private var ceiling: IDOrder??

    /// The ceiling of `tables`.
    init(txn: Transaction, tables: [Table]) {
        self.txn = txn
        self.tables = tables
    }

    /// The ceiling of databases keyed by the id alone.
    convenience init(txn: Transaction, databases: [Database]) {
        self.init(txn: txn, tables: databases.map { Table(database: $0, prefix: []) })
    }

    /// Whether `id` may be stored: false only when it sorts after every stored id.
    func mayHold(_ id: UUID) throws -> Bool {
        if ceiling == nil {
            ceiling = .some(try tables.compactMap(largestID).max())
        }
        guard let largest = ceiling! else { return false }
        return IDOrder(id) <= largest
    }

    /// The largest id of `table`: its last key, or the last before the keys that follow its prefix.
    private func largestID(in table: Table) throws -> IDOrder? {
        try txn.withCursor(table.database) { cursor in
            let last: Entry?
            if let after = Self.successor(of: table.prefix) {
                last = try cursor.seek(atLeast: after) == nil ? cursor.last() : cursor.previous()
            } else {
                last = try cursor.last()
            }
            guard let last, last.key.count == table.prefix.count + 16, last.key.starts(with: table.prefix) else { return nil }
            return try IDOrder(in: last.key, at: table.prefix.count)
        }
    }

    /// The smallest key above every key that begins with `prefix` (nil: there is none, or
    /// the prefix is empty).
    static func successor(of prefix: [UInt8]) -> [UInt8]? {
        var next = prefix
        while let last = next.last {
            if last < 0xFF {
                next[next.count - 1] = last + 1
                return next
            }
            next.removeLast()
        }
        return nil
    }
}

import Foundation
import ChronicleLMDB

/// Whether an entity may be stored in a model's databases keyed by its 16-byte id, answered
/// without a lookup for an id above the largest of their keys.
///
/// Entity ids are UUIDv7, ordered by creation time, so the entities a batch creates sort after
/// every one stored before it: a rebuild or a catch-up folding them looks up nothing (it used
/// to search each database for every todo created). The ceiling is read once, at the first
/// question; it holds while the databases are not written, that is during a batch's fold
/// (a projection writes them in `finish`).
///
/// Thread rules: one batch's, on the thread of its write transaction.
final class StoredIDCeiling {
    private let txn: Transaction
    private let databases: [Database]
    /// The largest key, once read (`.some(nil)`: the databases are empty).
    private var ceiling: IDOrder??

    init(txn: Transaction, databases: [Database]) {
        self.txn = txn
        self.databases = databases
    }

    /// Whether `id` may be stored: false only when it sorts after every stored key.
    func mayHold(_ id: UUID) throws -> Bool {
        if ceiling == nil {
            ceiling = .some(try databases.compactMap { database in
                try txn.withCursor(database) { cursor in
                    try cursor.last().map { IDOrder(try ModelCodec.id(in: $0.key, at: 0)) }
                }
            }.max())
        }
        guard let largest = ceiling! else { return false }
        return IDOrder(id) <= largest
    }
}

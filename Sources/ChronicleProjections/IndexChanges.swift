import ChronicleLMDB

/// The entries a batch's `finish` removes from and adds to one index (a key and no value),
/// written in key order when it ends.
///
/// `finish` visits entities by id, and an index is keyed otherwise (by day, by user): written
/// as they came, its entries fell on pages all over the tree, each search through pages not in
/// the processor's cache. Sorted, each lands near the one before. An entry is never both removed
/// and added by one batch (its key holds the entity's id and what moved it), so the removals go
/// first.
struct IndexChanges {
    private let txn: Transaction
    private let database: Database
    private var removed = KeyList()
    private var added = KeyList()

    init(txn: Transaction, database: Database) {
        self.txn = txn
        self.database = database
    }

    /// The changes that add `keys`, removing none.
    init(txn: Transaction, database: Database, adding keys: KeyList) {
        self.init(txn: txn, database: database)
        added = keys
    }

    mutating func remove(_ key: [UInt8]) { removed.append(key) }

    mutating func add(_ key: [UInt8]) { added.append(key) }

    /// Writes the changes, in key order.
    func write() throws {
        try removed.withSorted { keys in for key in keys { _ = try txn.delete(database, key: key) } }
        var puts = try AscendingPuts(txn: txn, database: database)
        try withUnsafeBytes(of: UInt8(0)) { byte in
            let empty = UnsafeRawBufferPointer(rebasing: byte[0..<0])
            try added.withSorted { keys in try puts.put(sorted: keys, value: empty) }
        }
    }
}

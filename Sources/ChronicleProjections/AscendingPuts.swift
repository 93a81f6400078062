import ChronicleLMDB

/// Puts into one database in ascending key order (a batch's `finish` writes its entities by id),
/// appending the keys beyond the database's last key (`MDB_APPEND`).
///
/// Entity ids rise with time, so most of a build's new entities sort after every stored one:
/// appended, they cost no search of the tree, and a full page is left full when the next one
/// begins, where an insertion splits it in halves.
struct AscendingPuts {
    private let txn: Transaction
    private let database: Database
    /// The database's last key when this began (nil: it was empty), until a key passes it.
    private var lastStored: [UInt8]?
    /// Every key from here on is beyond the stored ones.
    private var appending: Bool

    init(txn: Transaction, database: Database) throws {
        self.txn = txn
        self.database = database
        lastStored = try txn.withCursor(database) { cursor in try cursor.last().map { Array($0.key) } }
        appending = lastStored == nil
    }

    /// Stores `value` under `key`, which must follow the key of the previous put.
    mutating func put(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) throws {
        if !appending, let last = lastStored, last.withUnsafeBytes({ KeyOrder.precedes($0, key) }) {
            appending = true
            lastStored = nil
        }
        try txn.put(database, key: key, value: value, flags: appending ? .append : [])
    }

    /// Stores `value` under each of `keys`, in ascending order and following the key of the
    /// previous put: where the keys pass the stored ones is found by halving, not by comparing
    /// each (an index's keys mostly fall among the stored ones, so nearly every put compared).
    mutating func put(sorted keys: [UnsafeRawBufferPointer], value: UnsafeRawBufferPointer) throws {
        var beyond = keys.startIndex
        if !appending, let last = lastStored {
            var (low, high) = (keys.startIndex, keys.endIndex)
            last.withUnsafeBytes { last in
                while low < high {
                    let middle = low + (high - low) / 2
                    if KeyOrder.precedes(last, keys[middle]) { high = middle } else { low = middle + 1 }
                }
            }
            beyond = low
            for key in keys[..<beyond] { try txn.put(database, key: key, value: value) }
            if beyond < keys.endIndex {
                appending = true
                lastStored = nil
            }
        }
        for key in keys[beyond...] { try txn.put(database, key: key, value: value, flags: .append) }
    }
}

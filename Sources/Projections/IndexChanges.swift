import LMDB

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
    private var removed = Keys()
    private var added = Keys()

    init(txn: Transaction, database: Database) {
        self.txn = txn
        self.database = database
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

    /// Keys side by side in one buffer: an array each would be an allocation each.
    private struct Keys {
        private var bytes: [UInt8] = []
        private var ranges: [Range<Int>] = []

        mutating func append(_ key: [UInt8]) {
            ranges.append(bytes.count..<bytes.count + key.count)
            bytes += key
        }

        /// Hands `body` the keys in the order the index keeps them, each where it lies.
        func withSorted(_ body: ([UnsafeRawBufferPointer]) throws -> Void) rethrows {
            try bytes.withUnsafeBytes { all in
                let keys = ranges.map { UnsafeRawBufferPointer(rebasing: all[$0]) }
                var order = keys.indices.map { SortKey(keys[$0], index: $0) }
                order.sort { a, b in a.words != b.words ? a.words < b.words : KeyOrder.precedes(keys[a.index], keys[b.index]) }
                try body(order.map { keys[$0.index] })
            }
        }
    }

    /// A key's first 32 bytes as big-endian numbers (zeros past its end), which order keys as
    /// their bytes do unless they are equal; the keys themselves decide then. An index key is
    /// 20 to 36 bytes, what sorts it (a day, a user, a tag) first: compared with `memcmp`, its
    /// sort took a quarter of a rebuild's `finish`.
    private struct SortKey {
        let words: (UInt64, UInt64, UInt64, UInt64)
        let index: Int

        init(_ key: UnsafeRawBufferPointer, index: Int) {
            var padded: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &padded) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: key.prefix(32))) }
            words = (UInt64(bigEndian: padded.0), UInt64(bigEndian: padded.1), UInt64(bigEndian: padded.2), UInt64(bigEndian: padded.3))
            self.index = index
        }
    }
}

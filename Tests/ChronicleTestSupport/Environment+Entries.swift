import ChronicleLMDB

public extension Environment {
    /// Every entry of `database` in the order LMDB keeps them, as a cursor walks it.
    func entries(of database: Database) throws -> [(key: [UInt8], value: [UInt8])] {
        try read { txn in
            try txn.withCursor(database) { cursor in
                var all: [(key: [UInt8], value: [UInt8])] = []
                var entry = try cursor.first()
                while let current = entry {
                    all.append((Array(current.key), Array(current.value)))
                    entry = try cursor.next()
                }
                return all
            }
        }
    }
}

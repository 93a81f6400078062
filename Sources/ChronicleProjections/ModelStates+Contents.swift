import ChronicleLMDB

extension ModelStates {
    /// Every key and value of every table readers use, table by table (the checkpoint left
    /// out): two folds of one log that answer every read alike hold the same bytes. What tests
    /// compare a catch-up with a rebuild by.
    func contents() throws -> [[[UInt8]]] {
        try ProjectionError.mappingStorage {
            try environment.read { txn in
                try tables(txn).states.map { db in
                    var entries: [[UInt8]] = []
                    try txn.withCursor(db) { cursor in
                        var entry = try cursor.first()
                        while let current = entry {
                            entries.append(Array(current.key))
                            entries.append(Array(current.value))
                            entry = try cursor.next()
                        }
                    }
                    return entries
                }
            }
        }
    }
}

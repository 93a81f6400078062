import ChronicleLMDB

extension Transaction {
    /// Stores an index entry: the key is everything, the value is empty.
    func putIndexEntry(_ db: Database, key: [UInt8]) throws {
        try key.withUnsafeBytes { k in
            try withUnsafeBytes(of: UInt8(0)) { byte in
                try put(db, key: k, value: UnsafeRawBufferPointer(rebasing: byte[0..<0]))
            }
        }
    }
}

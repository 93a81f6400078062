import ChronicleLMDB

/// One record of the app's model that a store holds (``EventLog/modelRecords()``): opaque
/// bytes to the log, under the model's version.
public struct ModelRecord: Sendable, Hashable {
    /// The model's version (1, 2, …).
    public var version: UInt32
    /// The record's bytes, as given.
    public var bytes: [UInt8]

    /// Makes a record from its parts.
    public init(version: UInt32, bytes: [UInt8]) {
        self.version = version
        self.bytes = bytes
    }
}

extension EventLog {
    /// The database of model records (`model-records`: version, u32 big-endian → bytes). Stores
    /// written before it existed have none; older Chronicles ignore it.
    static let modelRecordsName = "model-records"

    /// The model records the store holds, oldest version first (none in a store that never
    /// recorded one).
    public func modelRecords() throws -> [ModelRecord] {
        try withRead { txn in
            guard let database = try? txn.openDatabase(named: Self.modelRecordsName, create: false) else { return [] }
            var records: [ModelRecord] = []
            try txn.withCursor(database) { cursor in
                var entry = try cursor.first()
                while let current = entry {
                    guard current.key.count == 4 else {
                        throw EventLogError.corruptRecord(position: 0, reason: "a model record under a key of \(current.key.count) bytes")
                    }
                    records.append(ModelRecord(version: current.key.readBigEndian(UInt32.self, at: 0), bytes: Array(current.value)))
                    entry = try cursor.next()
                }
            }
            return records
        }
    }

    /// Records `record` unless the store holds a record of its version already; returns the
    /// record of that version that stands (the one given, or the one there before).
    @discardableResult
    public func recordModel(_ record: ModelRecord) throws -> ModelRecord {
        do {
            return try environment.write { txn in
                let database = try txn.openDatabase(named: Self.modelRecordsName, create: true)
                var key = [UInt8](repeating: 0, count: 4)
                for index in 0..<4 { key[index] = UInt8(truncatingIfNeeded: record.version >> (24 - 8 * UInt32(index))) }
                if let existing = try txn.get(database, key: key) {
                    return ModelRecord(version: record.version, bytes: Array(existing))
                }
                try txn.put(database, key: key, value: record.bytes)
                return record
            }
        } catch let error as LMDBError {
            throw EventLogError.storage(error)
        }
    }
}

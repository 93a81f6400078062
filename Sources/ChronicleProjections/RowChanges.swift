import ChronicleSchema
import ChronicleLMDB

/// The changes a write transaction makes to the aggregates' stored rows: each share added to
/// (or taken from) its row as stored, each row read once, all written when done; a row left
/// with no members is removed. A batch's `finish` moves shares through one; a rebuild's
/// derivation adds them.
struct RowChanges {
    private let txn: Transaction
    private let database: Database
    /// The aggregates' names, by their place in the model (a damaged row names its aggregate).
    private let aggregates: [String]
    private var rows: [[UInt8]: StoredAggregateRow] = [:]

    init(txn: Transaction, database: Database, model: ChronicleModel) {
        self.txn = txn
        self.database = database
        aggregates = model.aggregates.map(\.name)
    }

    /// Adds (`sign` 1) or takes away (`sign` -1) `share` in its row of the aggregate at `aggregate`.
    mutating func add(_ share: StoredAggregateRow, sign: Int, to aggregate: Int) throws {
        let key = ModelStateKeys.row(aggregate, share.key)
        if rows[key] == nil {
            let stored = try key.withUnsafeBytes { key in
                try txn.get(database, key: key).map { try StoredAggregateRow.decode($0, aggregate: aggregates[aggregate]) }
            }
            rows[key] = stored ?? .empty(like: share)
        }
        rows[key]?.add(share, sign: sign)
    }

    /// Writes the rows changed.
    func write() throws {
        for (key, row) in rows {
            if row.members > 0 {
                try txn.put(database, key: key, value: row.encoded())
            } else {
                try txn.delete(database, key: key)
            }
        }
    }
}

import ChronicleTestSupport
import ChronicleLMDB
@testable import ChronicleProjections
import Testing

@Suite("index changes are written in the database's key order", .timeLimit(.minutes(5)))
struct IndexChangesTests {
    @Test("keys alike in their first 32 bytes, and keys that begin others, are each appended in order")
    func orderBeyondThePrefix() throws {
        var generator = TestSeed.generator(for: "IndexChangesTests.orderBeyondThePrefix")
        let keys = orderTestKeys(count: 300, using: &generator)
        let folder = try TemporaryFolder("index-changes")
        defer { folder.remove() }
        let environment = try Environment(path: folder.path, options: .init(noSync: true))
        let database = try environment.openDatabase(named: "index")
        // Into an empty database every key is appended (MDB_APPEND), which LMDB refuses for a key
        // that does not follow the one before in its order: the write fails unless the order is LMDB's.
        try environment.write { txn in
            var changes = IndexChanges(txn: txn, database: database)
            for key in keys.shuffled(using: &generator) { changes.add(key) }
            try changes.write()
        }
        let stored = try environment.entries(of: database).map(\.key)
        #expect(stored.count == keys.count)
        #expect(stored == keys.sorted { a, b in a.withUnsafeBytes { a in b.withUnsafeBytes { b in KeyOrder.precedes(a, b) } } })
    }
}

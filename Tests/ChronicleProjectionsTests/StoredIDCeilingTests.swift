@testable import ChronicleProjections
import ChronicleLMDB
import ChronicleTestSupport
import Foundation
import Testing

/// The largest id of tables keyed by an id, alone or after a prefix of their own (the
/// declared model's deleted entities, keyed by entity and id): what a batch does not look up.
@Suite struct StoredIDCeilingTests {
    @Test("the smallest key after a prefix carries into the byte before; a prefix of 0xFF bytes has none")
    func successor() {
        #expect(StoredIDCeiling.successor(of: [0, 1]) == [0, 2])
        #expect(StoredIDCeiling.successor(of: [0, 0xFF]) == [1])
        #expect(StoredIDCeiling.successor(of: [0xFF, 0xFF]) == nil)
        #expect(StoredIDCeiling.successor(of: []) == nil)
    }

    @Test("ids above the largest of a prefix's keys are not held; keys of the prefixes before and after do not count")
    func ceilingOfAPrefix() throws {
        let folder = try TemporaryFolder("id-ceiling")
        defer { folder.remove() }
        let environment = try Environment(path: folder.path, options: .init(mapSize: 1 << 20, maxDatabases: 2))
        let low = UUID(uuidString: "0190aaaa-0000-7000-8000-000000000001")!
        let middle = UUID(uuidString: "0190aaaa-0000-7000-8000-000000000005")!
        let high = UUID(uuidString: "0190aaaa-0000-7000-8000-000000000009")!
        func key(_ prefix: [UInt8], _ id: UUID) -> [UInt8] { prefix + withUnsafeBytes(of: id.uuid) { Array($0) } }
        try environment.write { txn in
            let table = try txn.openDatabase(named: "t")
            try txn.put(table, key: key([0, 1], low), value: [1])
            try txn.put(table, key: key([0, 1], middle), value: [1])
            // The entities before and after hold higher ids: neither counts.
            try txn.put(table, key: key([0, 0], high), value: [1])
            try txn.put(table, key: key([0, 2], high), value: [1])
            let ceiling = StoredIDCeiling(txn: txn, tables: [StoredIDCeiling.Table(database: table, prefix: [0, 1])])
            #expect(try ceiling.mayHold(low))
            #expect(try ceiling.mayHold(middle))
            #expect(try !ceiling.mayHold(high))
            // No key of entity 3: nothing is held.
            let empty = StoredIDCeiling(txn: txn, tables: [StoredIDCeiling.Table(database: table, prefix: [0, 3])])
            #expect(try !empty.mayHold(low))
            // Without a prefix, the last key is the largest (16 bytes: here, none is).
            let whole = StoredIDCeiling(txn: txn, databases: [table])
            #expect(try !whole.mayHold(low))
        }
    }
}

import ChronicleTestSupport
import ChronicleLMDB
@testable import ChronicleProjections
import Testing

@Suite("puts in ascending order append only the keys beyond the stored ones", .timeLimit(.minutes(5)))
struct AscendingPutsTests {
    @Test("keys among and equal to the stored ones are put, those beyond them appended, and the database holds them all")
    func amongThenBeyond() throws {
        try Self.withDatabase { environment, database in
            try environment.write { txn in
                for key: UInt8 in [10, 20, 30] { try txn.put(database, key: [key], value: [0]) }
            }
            try environment.write { txn in
                var puts = try AscendingPuts(txn: txn, database: database)
                // 30 equals the last stored key: appending it would be refused (MDB_KEYEXIST).
                for key: UInt8 in [15, 30, 31, 40] { try Self.put(&puts, key, value: key) }
            }
            #expect(try Self.entries(environment, database) == [[10, 0], [15, 15], [20, 0], [30, 30], [31, 31], [40, 40]])
        }
    }

    @Test("into an empty database every key is appended")
    func empty() throws {
        try Self.withDatabase { environment, database in
            try environment.write { txn in
                var puts = try AscendingPuts(txn: txn, database: database)
                for key: UInt8 in [1, 2, 200] { try Self.put(&puts, key, value: 7) }
            }
            #expect(try Self.entries(environment, database) == [[1, 7], [2, 7], [200, 7]])
        }
    }

    @Test("sorted keys: those below and equal to the stored ones are put, the rest appended, found by halving")
    func sortedKeys() throws {
        for (keys, stored) in [([5, 15, 30, 31, 40], [10, 20, 30]), ([1, 2], [10, 20, 30]), ([40, 50], [10, 20, 30]),
                               ([30], [10, 20, 30]), ([3, 4], [])] as [([UInt8], [UInt8])] {
            try Self.withDatabase { environment, database in
                try environment.write { txn in
                    for key in stored { try txn.put(database, key: [key], value: [0]) }
                }
                try environment.write { txn in
                    var puts = try AscendingPuts(txn: txn, database: database)
                    try keys.withUnsafeBytes { all in
                        let views = all.indices.map { UnsafeRawBufferPointer(rebasing: all[$0..<$0 + 1]) }
                        try withUnsafeBytes(of: UInt8(9)) { try puts.put(sorted: views, value: $0) }
                    }
                    // A key put after them follows them as before.
                    try Self.put(&puts, 60, value: 6)
                }
                let values: [(UInt8, UInt8)] = stored.map { ($0, 0) } + keys.map { ($0, 9) } + [(60, 6)]
                let expected = Dictionary(values) { _, put in put }
                #expect(try Self.entries(environment, database) == expected.keys.sorted().map { [$0, expected[$0]!] })
            }
        }
    }

    private static func put(_ puts: inout AscendingPuts, _ key: UInt8, value: UInt8) throws {
        try [key].withUnsafeBytes { k in try [value].withUnsafeBytes { v in try puts.put(key: k, value: v) } }
    }

    private static func entries(_ environment: Environment, _ database: Database) throws -> [[UInt8]] {
        try environment.entries(of: database).map { $0.key + $0.value }
    }

    private static func withDatabase(_ body: (Environment, Database) throws -> Void) throws {
        let folder = try TemporaryFolder("ascending-puts")
        defer { folder.remove() }
        let environment = try Environment(path: folder.path, options: .init(noSync: true))
        try body(environment, try environment.openDatabase(named: "keys"))
    }
}

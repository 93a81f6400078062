import ChronicleTestSupport
import ChronicleLMDB
import Testing

@Suite("KeyOrder is the order LMDB keeps keys in")
struct KeyOrderTests {
    @Test("keys of every length, prefixes of each other and high bytes included, come back from a cursor in KeyOrder")
    func agreesWithLMDB() throws {
        var random = SystemRandomNumberGenerator()
        var keys: Set<[UInt8]> = [[0], [0, 0], [1], [1, 0, 255], [255], [255, 255], [128, 1], [127, 200]]
        while keys.count < 300 {
            keys.insert((0..<Int.random(in: 1...6, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
        try withTemporaryEnvironment { environment, _ in
            let database = try environment.openDatabase(named: "keys")
            try environment.write { txn in
                for key in keys { try txn.put(database, key: key, value: []) }
            }
            let stored = try environment.entries(of: database).map(\.key)
            let sorted = keys.sorted { a, b in a.withUnsafeBytes { a in b.withUnsafeBytes { b in KeyOrder.precedes(a, b) } } }
            #expect(stored == sorted)
        }
    }

    @Test("a KeyList sorts its keys into the order a cursor gives: keys alike in their first 32 bytes, and keys that begin others, included")
    func keyListSortsAsLMDB() throws {
        var generator = TestSeed.generator(for: "KeyOrderTests.keyListSortsAsLMDB")
        let keys = orderTestKeys(count: 300, using: &generator)
        var list = KeyList()
        let added = keys.shuffled(using: &generator)
        for key in added { list.append(key) }
        try withTemporaryEnvironment { environment, _ in
            let database = try environment.openDatabase(named: "keys")
            try environment.write { txn in
                for key in keys { try txn.put(database, key: key, value: []) }
            }
            let stored = try environment.entries(of: database).map(\.key)
            #expect(list.sortedIndexes().map { Array(list[$0]) } == stored)
            #expect(list.withSorted { $0.map(Array.init) } == stored)
        }
    }
}

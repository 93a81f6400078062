import CLMDB
import Foundation
import ChronicleLMDB
import Testing

@Suite(.timeLimit(.minutes(5)))
struct EnvironmentTests {
    @Test func putThenGetInLaterTransactions() throws {
        try withTemporaryEnvironment { env, _ in
            let db = try env.openDatabase(named: "things")
            try env.write { txn in
                #expect(txn.isWritable)
                try txn.put(db, key: [1, 2], value: Array("one-two".utf8))
            }
            let value = try env.read { txn in
                #expect(!txn.isWritable)
                return bytes(try txn.get(db, key: [1, 2]))
            }
            #expect(value == Array("one-two".utf8))
            #expect(try env.read { txn in try txn.get(db, key: [9]) } == nil)
        }
    }

    @Test("reads between two commits share a snapshot id; a commit gives the next reads another; a write has none")
    func snapshotIDs() throws {
        try withTemporaryEnvironment { env, _ in
            let db = try env.openDatabase(named: "things")
            try env.write { txn in
                #expect(txn.snapshotID == nil)
                try txn.put(db, key: [1], value: [1])
            }
            let first = try env.read { txn in txn.snapshotID }
            #expect(first != nil)
            #expect(try env.read { txn in txn.snapshotID } == first)
            try env.write { txn in try txn.put(db, key: [1], value: [2]) }
            let second = try env.read { txn in txn.snapshotID }
            #expect(second != nil && second != first)
            #expect(try env.read { txn in bytes(try txn.get(db, key: [1])) } == [2])
        }
    }

    @Test func overwriteReplacesAndNoOverwriteRefuses() throws {
        try withTemporaryEnvironment { env, _ in
            let db = try env.openDatabase(named: "things")
            try env.write { txn in try txn.put(db, key: [1], value: [10]) }
            try env.write { txn in try txn.put(db, key: [1], value: [11]) }
            #expect(try env.read { txn in bytes(try txn.get(db, key: [1])) } == [11])
            #expect(throws: LMDBError.keyExists) {
                try env.write { txn in try txn.put(db, key: [1], value: [12], flags: .noOverwrite) }
            }
            #expect(try env.read { txn in bytes(try txn.get(db, key: [1])) } == [11])
        }
    }

    @Test func appendFlagRefusesAKeyOutOfOrder() throws {
        try withTemporaryEnvironment { env, _ in
            let db = try env.openDatabase(named: "log")
            try env.write { txn in
                for n: UInt64 in 1...100 { try txn.put(db, key: bigEndianKey(n), value: [UInt8(n)], flags: .append) }
            }
            #expect(throws: LMDBError.keyExists) {
                try env.write { txn in try txn.put(db, key: bigEndianKey(50), value: [0], flags: .append) }
            }
            #expect(try env.read { txn in try txn.count(db) } == 100)
        }
    }

    @Test func aThrownErrorAbortsTheWholeTransaction() throws {
        struct Boom: Error {}
        try withTemporaryEnvironment { env, _ in
            let db = try env.openDatabase(named: "things")
            try env.write { txn in try txn.put(db, key: [1], value: [1]) }
            #expect(throws: Boom.self) {
                try env.write { txn in
                    try txn.put(db, key: [2], value: [2])
                    try txn.delete(db, key: [1])
                    throw Boom()
                }
            }
            let state = try env.read { txn in (bytes(try txn.get(db, key: [1])), bytes(try txn.get(db, key: [2])), try txn.count(db)) }
            #expect(state.0 == [1])
            #expect(state.1 == nil)
            #expect(state.2 == 1)
        }
    }

    @Test func cursorWalksKeysInByteOrder() throws {
        try withTemporaryEnvironment { env, _ in
            let db = try env.openDatabase(named: "ordered")
            let numbers: [UInt64] = [300, 1, 70_000, 256, 2, 1 << 40]
            try env.write { txn in
                for n in numbers { try txn.put(db, key: bigEndianKey(n), value: Array(String(n).utf8)) }
            }
            let (forward, backward, fromSeek, first, last) = try env.read { txn in
                try txn.withCursor(db) { cursor -> ([String], [String], [String], [UInt8]?, [UInt8]?) in
                    var forward: [String] = []
                    var entry = try cursor.first()
                    while let current = entry {
                        forward.append(String(decoding: current.value, as: UTF8.self))
                        entry = try cursor.next()
                    }
                    var backward: [String] = []
                    entry = try cursor.last()
                    while let current = entry {
                        backward.append(String(decoding: current.value, as: UTF8.self))
                        entry = try cursor.previous()
                    }
                    var fromSeek: [String] = []
                    entry = try cursor.seek(atLeast: bigEndianKey(257))   // between 256 and 300
                    while let current = entry {
                        fromSeek.append(String(decoding: current.value, as: UTF8.self))
                        entry = try cursor.next()
                    }
                    return (forward, backward, fromSeek, try cursor.first().map { Array($0.key) }, try cursor.last().map { Array($0.key) })
                }
            }
            let sorted = numbers.sorted().map(String.init)
            #expect(forward == sorted)
            #expect(backward == sorted.reversed())
            #expect(fromSeek == ["300", "70000", "\(1 << 40)"])
            #expect(first == bigEndianKey(1))
            #expect(last == bigEndianKey(1 << 40))
            #expect(try env.read { txn in try txn.withCursor(db) { try $0.seek(atLeast: bigEndianKey(1 << 41)) } } == nil)
        }
    }

    @Test func emptyDatabaseCursorFindsNothing() throws {
        try withTemporaryEnvironment { env, _ in
            let db = try env.openDatabase(named: "empty")
            let found = try env.read { txn in
                try txn.withCursor(db) { cursor in (try cursor.first() == nil, try cursor.last() == nil) }
            }
            #expect(found.0 && found.1)
        }
    }

    @Test func cursorPutAndDeleteCurrent() throws {
        try withTemporaryEnvironment { env, _ in
            let db = try env.openDatabase(named: "things")
            try env.write { txn in
                try txn.withCursor(db) { cursor in
                    for n: UInt64 in 1...5 {
                        try bigEndianKey(n).withUnsafeBytes { k in
                            try [UInt8(n)].withUnsafeBytes { v in try cursor.put(key: k, value: v) }
                        }
                    }
                    _ = try cursor.seek(atLeast: bigEndianKey(3))
                    try cursor.deleteCurrent()
                }
            }
            let values = try env.read { txn in
                try txn.withCursor(db) { cursor -> [UInt8] in
                    var values: [UInt8] = []
                    var entry = try cursor.first()
                    while let current = entry { values.append(current.value[0]); entry = try cursor.next() }
                    return values
                }
            }
            #expect(values == [1, 2, 4, 5])
        }
    }

    @Test func deleteReportsWhetherTheKeyWasThere() throws {
        try withTemporaryEnvironment { env, _ in
            let db = try env.openDatabase(named: "things")
            let results = try env.write { txn in
                try txn.put(db, key: [7], value: [7])
                return (try txn.delete(db, key: [7]), try txn.delete(db, key: [7]))
            }
            #expect(results == (true, false))
        }
    }

    @Test func clearEmptiesAndDropRemovesADatabase() throws {
        try withTemporaryEnvironment { env, _ in
            let a = try env.openDatabase(named: "a")
            let b = try env.openDatabase(named: "b")
            try env.write { txn in
                for n: UInt8 in 0..<10 { try txn.put(a, key: [n], value: [n]); try txn.put(b, key: [n], value: [n]) }
            }
            try env.write { txn in try txn.clear(a) }
            #expect(try env.read { txn in try txn.count(a) } == 0)
            try env.write { txn in try txn.drop(b) }
            #expect(throws: LMDBError.notFound) { try env.openDatabase(named: "b", create: false) }
            #expect(try env.read { txn in try txn.count(a) } == 0)
        }
    }

    @Test func namedDatabasesAreSeparate() throws {
        try withTemporaryEnvironment { env, _ in
            let a = try env.openDatabase(named: "a")
            let b = try env.openDatabase(named: "b")
            #expect(a.name == "a")
            try env.write { txn in try txn.put(a, key: [1], value: [0xA]) }
            #expect(try env.read { txn in try txn.get(b, key: [1]) } == nil)
            #expect(try env.read { txn in bytes(try txn.get(a, key: [1])) } == [0xA])
        }
    }

    @Test func openingAMissingDatabaseWithoutCreateIsNotFound() throws {
        try withTemporaryEnvironment { env, _ in
            #expect(throws: LMDBError.notFound) { try env.openDatabase(named: "absent", create: false) }
        }
    }

    @Test func tooManyNamedDatabasesIsDatabasesFull() throws {
        try withTemporaryEnvironment(.init(maxDatabases: 2)) { env, _ in
            _ = try env.openDatabase(named: "one")
            _ = try env.openDatabase(named: "two")
            #expect(throws: LMDBError.databasesFull) { try env.openDatabase(named: "three") }
        }
    }

    @Test func anEmptyKeyIsBadValueSize() throws {
        try withTemporaryEnvironment { env, _ in
            let db = try env.openDatabase(named: "things")
            #expect(throws: LMDBError.badValueSize) { try env.write { txn in try txn.put(db, key: [], value: [1]) } }
        }
    }

    @Test func aFullMapGrowsByItselfAndKeepsEveryValue() throws {
        try withTemporaryEnvironment(.init(mapSize: 256 << 10)) { env, _ in
            let db = try env.openDatabase(named: "big")
            let initial = env.currentMapSize()
            let value = [UInt8](repeating: 0xAB, count: 4096)
            for chunk: UInt64 in 0..<32 {   // 32 × 32 × 4 KiB = 4 MiB, 16× the initial map
                try env.write { txn in
                    for n in 0..<UInt64(32) { try txn.put(db, key: bigEndianKey(chunk * 32 + n), value: value) }
                }
            }
            #expect(env.currentMapSize() > initial)
            let (count, sample) = try env.read { txn in (try txn.count(db), bytes(try txn.get(db, key: bigEndianKey(1000)))) }
            #expect(count == 1024)
            #expect(sample == value)
        }
    }

    @Test func aMapThatMayNotGrowReportsMapFull() throws {
        try withTemporaryEnvironment(.init(mapSize: 256 << 10, maxMapSize: 256 << 10)) { env, _ in
            let db = try env.openDatabase(named: "big")
            let value = [UInt8](repeating: 1, count: 4096)
            #expect(throws: LMDBError.mapFull) {
                try env.write { txn in
                    for n: UInt64 in 0..<1000 { try txn.put(db, key: bigEndianKey(n), value: value) }
                }
            }
            // The failed transaction left nothing, and the environment still works.
            #expect(try env.read { txn in try txn.count(db) } == 0)
            try env.write { txn in try txn.put(db, key: [1], value: [1]) }
            #expect(try env.read { txn in try txn.count(db) } == 1)
        }
    }

    @Test func reopeningAnEnvironmentKeepsItsData() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-lmdb-tests-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let env = try Environment(path: path)
            let db = try env.openDatabase(named: "things")
            try env.write { txn in try txn.put(db, key: [1], value: [42]) }
        }
        let env = try Environment(path: path)
        let db = try env.openDatabase(named: "things", create: false)
        #expect(try env.read { txn in bytes(try txn.get(db, key: [1])) } == [42])
        #expect(env.path == path)
    }

    @Test func aFileThatIsNotLMDBIsRefusedAsInvalid() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-lmdb-tests-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 64 << 10).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        #expect(throws: LMDBError.invalidFile) { try Environment(path: path) }
    }

    @Test func copyWritesAUsableCompactedEnvironment() throws {
        try withTemporaryEnvironment { env, path in
            let db = try env.openDatabase(named: "things")
            try env.write { txn in for n: UInt8 in 0..<50 { try txn.put(db, key: [n], value: [n, n]) } }
            let copyPath = path + "-copy"
            defer { try? FileManager.default.removeItem(atPath: copyPath) }
            try FileManager.default.createDirectory(atPath: copyPath, withIntermediateDirectories: true)
            try env.copy(to: copyPath)
            let copy = try Environment(path: copyPath)
            let copied = try copy.openDatabase(named: "things", create: false)
            #expect(try copy.read { txn in try txn.count(copied) } == 50)
            #expect(try copy.read { txn in bytes(try txn.get(copied, key: [49])) } == [49, 49])
        }
    }

    @Test func concurrentReadersSeeOnlyCommittedWrites() async throws {
        try await withTemporaryEnvironmentAsync { env in
            let db = try env.openDatabase(named: "counter")
            try env.write { txn in try txn.put(db, key: [0], value: bigEndianKey(0)) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for n: UInt64 in 1...200 {
                        try env.write { txn in
                            try txn.put(db, key: [1], value: bigEndianKey(n))   // written first …
                            try txn.put(db, key: [0], value: bigEndianKey(n))   // … then the pair is complete
                        }
                    }
                }
                for _ in 0..<3 {
                    group.addTask {
                        for _ in 0..<500 {
                            let (a, b) = try env.read { txn in (bytes(try txn.get(db, key: [0])), bytes(try txn.get(db, key: [1]))) }
                            // A reader never sees one half of a transaction.
                            if a != bigEndianKey(0) { #expect(a == b) }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

/// ``withTemporaryEnvironment(_:_:)`` for async bodies.
func withTemporaryEnvironmentAsync(_ body: (Environment) async throws -> Void) async throws {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("chronicle-lmdb-tests-\(UUID().uuidString.lowercased())").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    let environment = try Environment(path: path)
    try await body(environment)
}

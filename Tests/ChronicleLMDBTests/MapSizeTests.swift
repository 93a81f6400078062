import Foundation
import ChronicleLMDB
import Testing

/// How the map starts small and grows.
@Suite(.timeLimit(.minutes(5)))
struct MapSizeTests {
    @Test("a map below 64 MiB grows to 64 MiB at its first growth, its file reserved up to it (writeMap), and the data stays")
    func smallMapGrowsToSixtyFourMiB() throws {
        try withTemporaryEnvironment(Environment.Options(mapSize: 1 << 20, writeMap: true)) { environment, path in
            let fileSize = { (try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int) ?? 0 }
            #expect(environment.currentMapSize() == 1 << 20)
            #expect(try fileSize() == 1 << 20, "reserved up to the map")
            // 3 MiB of values do not fit in 1 MiB: the write grows the map once and runs again.
            try environment.write { txn in
                let db = try txn.openDatabase(named: nil)
                for key in 0..<3_000 {
                    try txn.put(db, key: bigEndianKey(UInt64(key)), value: [UInt8](repeating: 7, count: 1_000))
                }
            }
            #expect(environment.currentMapSize() == 64 << 20)
            #expect(try fileSize() == 64 << 20)
            let last = try environment.read { txn in
                try bytes(txn.get(try txn.openDatabase(named: nil), key: bigEndianKey(2_999)))
            }
            #expect(last == [UInt8](repeating: 7, count: 1_000))
        }
    }

    @Test("ensureRoom grows the map in a full map's steps until the room asked for fits beyond the used pages, reserving the file")
    func ensureRoom() throws {
        try withTemporaryEnvironment(Environment.Options(mapSize: 1 << 20, writeMap: true)) { environment, path in
            let fileSize = { (try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int) ?? 0 }
            try environment.write { txn in
                let db = try txn.openDatabase(named: nil)
                for key in 0..<100 {
                    try txn.put(db, key: bigEndianKey(UInt64(key)), value: [UInt8](repeating: 7, count: 1_000))
                }
            }
            let used = environment.usedSize()
            #expect(used > 100 * 1_000 && used < 1 << 20 && used % 4_096 == 0, "\(used)")
            try environment.ensureRoom(for: (1 << 20) - used)
            #expect(environment.currentMapSize() == 1 << 20, "room enough already: no growth")
            try environment.ensureRoom(for: (1 << 20) - used + 1)
            #expect(environment.currentMapSize() == 64 << 20, "first step: straight to 64 MiB")
            #expect(try fileSize() == 64 << 20)
            try environment.ensureRoom(for: 150 << 20)
            #expect(environment.currentMapSize() == 192 << 20, "then steps of 64 MiB while a quarter is less, as often as it takes: 128, then 192 MiB")
            #expect(try fileSize() == 192 << 20)
            try environment.ensureRoom(for: 330 << 20)
            #expect(environment.currentMapSize() == 400 << 20, "then a quarter: 256, 320, then 400 MiB")
            #expect(try fileSize() == 400 << 20)
            try environment.ensureRoom(for: 0)
            #expect(environment.currentMapSize() == 400 << 20, "never shrinks")
        }
    }

    @Test("ensureMapSize grows the map ahead of a large write, never shrinks it")
    func ensureMapSize() throws {
        try withTemporaryEnvironment(Environment.Options(mapSize: 1 << 20, writeMap: true)) { environment, _ in
            try environment.ensureMapSize(atLeast: 8 << 20)
            #expect(environment.currentMapSize() == 8 << 20)
            try environment.ensureMapSize(atLeast: 2 << 20)
            #expect(environment.currentMapSize() == 8 << 20)
        }
    }
}

import ChronicleTestSupport
@testable import ChronicleLog
import Foundation
import ChronicleLMDB
import Testing

@Suite(.timeLimit(.minutes(10)))
struct VerifyTests {
    /// A closed store holding 10 events, ready to be damaged.
    private func makeStore(_ store: TestStore) async throws {
        try await store.withLog { log throws in
            for n in 1...10 {
                try await log.append(to: "s-\(n % 3)", events: [makeEvent("E", #"{"n":\#(n),"note":"hello"}"#)])
            }
            #expect(try log.verify().isIntact)
        }
    }

    @Test func anIntactLogPasses() async throws {
        try await TestStore.with { store in
            try await makeStore(store)
            try await store.withLog { log throws in
                var progress: [Int] = []
                let report = try log.verify { checked, head in
                    progress.append(checked)
                    #expect(head == 10)
                }
                #expect(report.isIntact)
                #expect(report.problem == nil)
                #expect(report.eventsChecked == 10)
                #expect(report.head == 10)
                #expect(report.headHash == (try log.event(at: 10)?.hash ?? []).map { String(format: "%02x", $0) }.joined())
                #expect(progress.last == 10)
            }
        }
    }

    /// `meta["first-own"]` (which lets a merge skip looking for this device's writes) must
    /// name the first event the store's device wrote: 0 while there is none.
    @Test func aWrongFirstOwnPositionIsAnIndexProblem() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                _ = try await log.ingest([ForeignEvent(id: UUIDv7.make(), stream: "s", version: 1, type: "E",
                                                       timestampMilliseconds: 1_700_000_000_000, origin: "device-b",
                                                       data: Data("{}".utf8))])
                #expect(try log.verify().isIntact)
                try await log.append(to: "s", events: [makeEvent(), makeEvent()])
                #expect(try log.verify().isIntact)
            }
            try RawLog.with(store.logPath) { raw throws in
                #expect(try raw.meta("first-own") == RawLog.key(2))
                try raw.setMeta("first-own", RawLog.key(0))
            }
            try await store.withLog { log throws in
                #expect(try log.verify().problem == .init(position: 2, cause: .index,
                                                          detail: "meta first-own says 0, but the first event of this store's device is at 2"))
            }
            try RawLog.with(store.logPath) { raw throws in try raw.setMeta("first-own", RawLog.key(3)) }
            try await store.withLog { log throws in
                #expect(try log.verify().problem?.detail == "meta first-own says 3, but the first event of this store's device is at 2")
            }
        }
    }

    /// The append keys' touches must name positions the log holds: `touches` up to their
    /// checkpoint, each `touch-log` entry after it. Each kind of damage is reported, with where
    /// it shows, and the store is whole again once it is undone.
    @Test func touchesOutsideTheirCheckpointAndTheHeadAreReported() async throws {
        try await TestStore.with { store in
            let options = EventLog.Options(streamIndexCheckpoint: 4)
            try await store.withLog(options) { log throws in
                for n in 1...5 {   // 10 events; the touches' checkpoint moves at 4 and 8
                    try await log.append([StreamAppend(stream: "s-\(n)", events: [makeEvent(), makeEvent()])], keys: [.touch("k\(n % 2)")])
                }
                #expect(try log.verify().isIntact)
            }
            #expect(try RawLog.with(store.logPath) { raw in try raw.meta("touches-indexed") } == RawLog.key(8))
            let damages: [(String, (RawLog, Database, Database) throws -> Void, VerifyReport.Problem)] = [
                ("an entry past the head", { raw, _, touchLog in try Self.put(touchLog, 15, Self.touchEntry(["k9": 15]), in: raw) },
                 .init(position: 15, cause: .index, detail: "a touch-log entry at 15, outside the touches' checkpoint 8 and the head 10")),
                ("an entry at the checkpoint", { raw, _, touchLog in try Self.put(touchLog, 8, Self.touchEntry(["k9": 8]), in: raw) },
                 .init(position: 8, cause: .index, detail: "a touch-log entry at 8, outside the touches' checkpoint 8 and the head 10")),
                ("an entry naming a position before the checkpoint",
                 { raw, _, touchLog in try Self.put(touchLog, 9, Self.touchEntry(["k9": 3]), in: raw) },
                 .init(position: 9, cause: .index, detail: "the touch-log entry at 9 names position 3, at or before the touches' checkpoint 8")),
                ("a cut entry", { raw, _, touchLog in try Self.put(touchLog, 10, Array(Self.touchEntry(["k1": 10]).dropLast(3)), in: raw) },
                 .init(position: 10, cause: .format, detail: "the touch-log entry at 10 is damaged (record is truncated)")),
                ("a checkpoint past the head", { raw, _, _ in try raw.setMeta("touches-indexed", RawLog.key(11)) },
                 .init(position: 10, cause: .index, detail: "meta touches-indexed says 11, past the head 10")),
                ("no checkpoint of the touches", { raw, _, _ in try raw.deleteMeta("touches-indexed") },
                 .init(position: 10, cause: .format, detail: "meta touches-indexed is missing")),
                ("a checkpoint of 4 bytes", { raw, _, _ in try raw.setMeta("touches-indexed", [0, 0, 0, 8]) },
                 .init(position: 10, cause: .format, detail: "meta touches-indexed holds 4 bytes, not 8")),
                ("a touch past the checkpoint", { raw, touches, _ in try Self.put(touches, Array("k7".utf8), RawLog.key(9), in: raw) },
                 .init(position: 9, cause: .index, detail: "touches says key 'k7' was touched at 9, past their checkpoint 8")),
            ]
            for (name, damage, problem) in damages {
                let undo = try RawLog.with(store.logPath) { raw in
                    let (touches, touchLog) = try Self.touchDatabases(raw)
                    let before = try Self.snapshot(raw, touches, touchLog)
                    try damage(raw, touches, touchLog)
                    return before
                }
                try await store.withLog(options) { log throws in
                    let found = try log.verify().problem
                    #expect(found == problem, "\(name): \(found.map(String.init(describing:)) ?? "none")")
                }
                try RawLog.with(store.logPath) { raw in
                    let (touches, touchLog) = try Self.touchDatabases(raw)
                    try Self.restore(undo, raw, touches, touchLog)
                }
                try await store.withLog(options) { log throws in #expect(try log.verify().isIntact, "undone: \(name)") }
            }
        }
    }

    private static func touchDatabases(_ raw: RawLog) throws -> (touches: Database, touchLog: Database) {
        (try raw.environment.openDatabase(named: "touches", create: false), try raw.environment.openDatabase(named: "touch-log", create: false))
    }

    /// A `touch-log` value: for each key, its length (u16), its bytes and its position (u64), big-endian.
    private static func touchEntry(_ touches: [String: UInt64]) -> [UInt8] {
        touches.flatMap { key, position in
            withUnsafeBytes(of: UInt16(key.utf8.count).bigEndian) { Array($0) } + Array(key.utf8) + RawLog.key(position)
        }
    }

    private static func put(_ database: Database, _ position: UInt64, _ value: [UInt8], in raw: RawLog) throws {
        try put(database, RawLog.key(position), value, in: raw)
    }

    private static func put(_ database: Database, _ key: [UInt8], _ value: [UInt8], in raw: RawLog) throws {
        try raw.environment.write { txn in try txn.put(database, key: key, value: value) }
    }

    private typealias TouchState = (touches: [([UInt8], [UInt8])], touchLog: [([UInt8], [UInt8])], indexed: [UInt8]?)

    private static func snapshot(_ raw: RawLog, _ touches: Database, _ touchLog: Database) throws -> TouchState {
        try raw.environment.read { txn in
            func entries(_ database: Database) throws -> [([UInt8], [UInt8])] {
                try txn.withCursor(database) { cursor in
                    var result: [([UInt8], [UInt8])] = []
                    var entry = try cursor.first()
                    while let current = entry {
                        result.append((Array(current.key), Array(current.value)))
                        entry = try cursor.next()
                    }
                    return result
                }
            }
            return (try entries(touches), try entries(touchLog), try txn.get(raw.meta, key: Array("touches-indexed".utf8)).map { Array($0) })
        }
    }

    private static func restore(_ state: TouchState, _ raw: RawLog, _ touches: Database, _ touchLog: Database) throws {
        try raw.environment.write { txn in
            try txn.clear(touches)
            try txn.clear(touchLog)
            for (key, value) in state.touches { try txn.put(touches, key: key, value: value) }
            for (key, value) in state.touchLog { try txn.put(touchLog, key: key, value: value) }
            if let indexed = state.indexed { try txn.put(raw.meta, key: Array("touches-indexed".utf8), value: indexed) }
        }
    }

    @Test(arguments: [1, 5, 10] as [UInt64])
    func oneFlippedDataByteFailsWithChecksumAtThatPosition(position: UInt64) async throws {
        try await TestStore.with { store in
            try await makeStore(store)
            try RawLog.with(store.logPath) { raw throws in
                try raw.modifyRecord(at: position) { record in
                    let data = RecordLayout.dataRange(of: record)
                    #expect(String(decoding: record[data], as: UTF8.self).contains("hello"))
                    record[data.lowerBound + 3] ^= 0x01
                }
            }
            try await store.withLog { log throws in
                let report = try log.verify()
                #expect(!report.isIntact)
                #expect(report.problem?.position == position)
                #expect(report.problem?.cause == .checksum)
                #expect(report.eventsChecked == Int(position) - 1)
                #expect(report.problem?.description.hasPrefix("position \(position): checksum") == true)
            }
        }
    }

    @Test(arguments: [0, 1, 6, 13, 30, 46, 77, 78] as [Int])
    func aFlippedByteAnywhereIsCaught(offset: Int) async throws {
        try await TestStore.with { store in
            try await makeStore(store)
            try RawLog.with(store.logPath) { raw throws in try raw.modifyRecord(at: 4) { $0[offset] ^= 0x10 } }
            try await store.withLog { log throws in
                let problem = try #require(try log.verify().problem)
                #expect(problem.position == 4)
                // The format and flags bytes are checked first; every other byte is covered by the checksum.
                #expect(problem.cause == (offset < 2 ? .format : .checksum))
            }
        }
    }

    @Test func aDeletedRecordIsAGapAtItsPosition() async throws {
        try await TestStore.with { store in
            try await makeStore(store)
            try RawLog.with(store.logPath) { raw throws in try raw.deleteRecord(at: 6) }
            try await store.withLog { log throws in
                let report = try log.verify()
                #expect(report.problem?.position == 6)
                #expect(report.problem?.cause == .gap)
                #expect(report.eventsChecked == 5)
            }
        }
    }

    @Test func aDeletedLastRecordShowsInTheIndexes() async throws {
        try await TestStore.with { store in
            try await makeStore(store)
            try RawLog.with(store.logPath) { raw throws in try raw.deleteRecord(at: 10) }
            try await store.withLog { log throws in
                let report = try log.verify()
                #expect(report.problem?.cause == .index)
                #expect(!report.isIntact)
            }
        }
    }

    @Test func aRewrittenRecordWithAValidChecksumBreaksTheChain() async throws {
        try await TestStore.with { store in
            try await makeStore(store)
            // An editor who knows the checksum but not how to redo the chain changes event 7.
            try RawLog.with(store.logPath) { raw throws in
                try raw.modifyRecord(at: 7) { record in
                    let data = RecordLayout.dataRange(of: record)
                    record[data.lowerBound + 3] ^= 0x01
                    RecordLayout.resealChecksum(&record)
                }
            }
            try await store.withLog { log throws in
                let report = try log.verify()
                #expect(report.problem?.position == 7)
                #expect(report.problem?.cause == .chain)
            }
        }
    }

    @Test func aReforgedRecordBreaksTheChainAtTheNextOne() async throws {
        try await TestStore.with { store in
            try await makeStore(store)
            // A better-informed editor re-encodes event 3 with its own hash and checksum; the
            // forgery only shows at event 4, whose hash covers the original event 3.
            let (original, previous) = try await store.withLog { log throws in
                (try #require(try log.event(at: 3)), try #require(try log.event(at: 2)))
            }
            let forged = RecordCodec.encode(position: 3, id: original.id, stream: original.stream, version: original.version,
                                            type: original.type, timestampMilliseconds: original.timestampMilliseconds,
                                            origin: original.origin, data: Data(#"{"n":3,"note":"FORGED"}"#.utf8),
                                            previousHash: previous.hash).bytes
            try RawLog.with(store.logPath) { raw throws in try raw.modifyRecord(at: 3) { $0 = forged } }
            try await store.withLog { log throws in
                #expect(String(decoding: try log.event(at: 3)?.data ?? Data(), as: UTF8.self).contains("FORGED"))
                let report = try log.verify()
                #expect(report.problem?.position == 4)
                #expect(report.problem?.cause == .chain)
                #expect(report.eventsChecked == 3)
            }
        }
    }

    @Test func aRecordUnderTheWrongPositionIsCaught() async throws {
        try await TestStore.with { store in
            try await makeStore(store)
            try RawLog.with(store.logPath) { raw throws in
                let second = try #require(try raw.record(at: 2))
                try raw.modifyRecord(at: 5) { $0 = second }   // an intact record, stored under the wrong key
            }
            try await store.withLog { log throws in
                let problem = try #require(try log.verify().problem)
                #expect(problem.position == 5)
                #expect(problem.cause == .position)
            }
        }
    }

    @Test func aTruncatedRecordIsAFormatProblemNotACrash() async throws {
        try await TestStore.with { store in
            try await makeStore(store)
            try RawLog.with(store.logPath) { raw throws in try raw.modifyRecord(at: 8) { $0.removeLast(5) } }
            try await store.withLog { log throws in
                let problem = try #require(try log.verify().problem)
                #expect(problem.position == 8)
                #expect(problem.cause == .checksum)
                #expect(throws: EventLogError.self) { try log.event(at: 8) }
            }
            try RawLog.with(store.logPath) { raw throws in try raw.modifyRecord(at: 8) { $0 = Array($0.prefix(20)) } }
            try await store.withLog { log throws in
                let problem = try #require(try log.verify().problem)
                #expect(problem.position == 8)
                #expect(problem.cause == .format)
            }
        }
    }

    @Test func aDamagedRecordIsReportedWhenRead() async throws {
        try await TestStore.with { store in
            try await makeStore(store)
            // A length field pointing past the record's end.
            try RawLog.with(store.logPath) { raw throws in try raw.modifyRecord(at: 2) { $0[RecordLayout.headerSize] = 0xFF } }
            try await store.withLog { log throws in
                let error = #expect(throws: EventLogError.self) { try log.read(after: 0, limit: 10) }
                guard case .corruptRecord(let position, _)? = error else {
                    Issue.record("expected corruptRecord, got \(String(describing: error))")
                    return
                }
                #expect(position == 2)
                #expect(error?.description.contains("chronicle verify") == true)
            }
        }
    }
}

import ChronicleTestSupport
@testable import EventLog
import Foundation
import Testing

@Suite(.timeLimit(.minutes(3)))
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

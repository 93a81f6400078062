import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

@Suite(.timeLimit(.minutes(10)))
struct ReadTests {
    /// 30 events: streams `user-0…2` and `todo-0…4`, types `A`, `B`, `C` in turn.
    private func fill(_ log: EventLog) async throws -> [NewEvent] {
        var all: [NewEvent] = []
        for n in 0..<30 {
            let event = makeEvent(["A", "B", "C"][n % 3], #"{"n":\#(n)}"#)
            let stream = n % 2 == 0 ? "user-\(n % 3)" : "todo-\(n % 5)"
            try await log.append(to: stream, events: [event])
            all.append(event)
        }
        return all
    }

    @Test func readsForwardFromAPositionWithALimit() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let all = try await fill(log)
                #expect(try log.read().map(\.id) == all.map(\.id))
                #expect(try log.read(after: 0, limit: 5).map(\.position) == [1, 2, 3, 4, 5])
                #expect(try log.read(after: 10, limit: 3).map(\.position) == [11, 12, 13])
                #expect(try log.read(after: 28, limit: 10).map(\.position) == [29, 30])
                #expect(try log.read(after: 30, limit: 10).isEmpty)
                #expect(try log.read(after: 5, limit: 0).isEmpty)
                #expect(try log.read(after: 1_000).isEmpty)
                #expect(try log.read(after: .max).isEmpty)
            }
        }
    }

    @Test func readStopsBeforeTheEventThatWouldPassTheBytesButReturnsOneAtLeast() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                _ = try await fill(log)
                // Data `{"n":0}` … `{"n":9}` is 7 bytes, from `{"n":10}` on 8.
                #expect(try log.read(after: 0, limit: 100, maxBytes: 21).map(\.position) == [1, 2, 3])
                #expect(try log.read(after: 0, limit: 100, maxBytes: 20).map(\.position) == [1, 2])
                #expect(try log.read(after: 10, limit: 100, maxBytes: 16).map(\.position) == [11, 12])
                #expect(try log.read(after: 10, limit: 1, maxBytes: 16).map(\.position) == [11])
                #expect(try log.read(after: 0, limit: 100, maxBytes: 1).map(\.position) == [1], "one event even when it alone is larger")
                #expect(try log.read(after: 0, limit: 100, maxBytes: 0).map(\.position) == [1])
            }
        }
    }

    @Test func storedRecordsReadInPlaceAreTheEventsReadCopiesOut() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                _ = try await fill(log)
                let stored = try log.readStored(after: 3, limit: 20)
                var viewed: [RecordedEvent] = []
                var origins: [Bool] = []
                try stored.forEach { view in
                    viewed.append(view.recorded())
                    origins.append(view.hasOrigin(log.deviceID) && !view.hasOrigin("another-device"))
                    #expect(view.data.elementsEqual(viewed.last!.data) && view.type.elementsEqual(viewed.last!.type.utf8))
                }
                #expect(viewed == (try log.read(after: 3, limit: 20)), "every field, the hash included")
                #expect(stored.count == 20 && stored.last == 23)
                #expect(origins.count == 20 && origins.allSatisfy { $0 })
                // The same byte bound as `read`, one event at least.
                #expect(try log.readStored(after: 0, limit: 100, maxBytes: 21).last == 3)
                #expect(try log.readStored(after: 0, limit: 100, maxBytes: 0).count == 1)
                let none = try log.readStored(after: 30, limit: 10)
                #expect(none.count == 0 && none.last == nil)
            }
        }
    }

    @Test func storedRecordsRefuseADamagedRecordAsReadDoes() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "todo-1", events: [makeEvent(), makeEvent(), makeEvent()])
            }
            try RawLog.with(store.logPath) { raw throws in try raw.modifyRecord(at: 2) { $0[$0.count - 2] ^= 0x10 } }
            try await store.withLog { log throws in
                #expect(throws: EventLogError.corruptRecord(position: 2, reason: "checksum mismatch")) {
                    try log.readStored(after: 0, limit: 10)
                }
                #expect(try log.readStored(after: 0, limit: 1).last == 1)
            }
        }
    }

    /// A bit flip seen in `CorruptionTests.bitFlipSweep`: position 1's key damaged into 0
    /// sorts before every position a read asks for, and its event dropped out of the listing
    /// unseen. Positions are gap-free, so a read names the one missing.
    @Test func aKeyDamagedOutOfItsPlaceIsAMissingPositionNotAShorterLog() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "todo-1", events: [makeEvent(), makeEvent(), makeEvent()])
            }
            try RawLog.with(store.logPath) { raw throws in
                let record = try #require(try raw.record(at: 1))
                try raw.environment.write { txn in
                    try txn.delete(raw.events, key: RawLog.key(1))
                    try txn.put(raw.events, key: RawLog.key(0), value: record)
                }
            }
            try await store.withLog { log throws in
                #expect(throws: EventLogError.corruptRecord(position: 1, reason: "position 1 is missing (the next stored is 2)")) {
                    try log.read(after: 0, limit: 10)
                }
                #expect(try log.read(after: 1, limit: 10).map(\.position) == [2, 3])
            }
        }
    }

    @Test func scanVisitsEverythingAfterAPositionInChunks() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                _ = try await fill(log)
                var seen: [UInt64] = []
                let last = try log.scan(after: 4, chunk: 7) { seen.append($0.position) }
                #expect(seen == Array(5...30))
                #expect(last == 30)
                var none = 0
                #expect(try log.scan(after: 30, chunk: 7) { _ in none += 1 } == 30)
                #expect(none == 0)
            }
        }
    }

    @Test func readsByStream() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let all = try await fill(log)
                let expected = all.enumerated().filter { $0.offset % 2 == 1 && $0.offset % 5 == 3 }.map(\.element.id)
                let todo3 = try log.read(stream: "todo-3")
                #expect(todo3.map(\.id) == expected)
                #expect(todo3.map(\.version) == Array(1...UInt64(expected.count)))
                #expect(todo3.allSatisfy { $0.stream == "todo-3" })
                #expect(try log.read(stream: "todo-3", afterVersion: 1).map(\.version) == Array(2...UInt64(expected.count)))
                #expect(try log.read(stream: "todo-3", afterVersion: 0, limit: 1).map(\.version) == [1])
                #expect(try log.read(stream: "todo").isEmpty)
                #expect(try log.read(stream: "todo-33").isEmpty)
                #expect(try log.read(stream: "nobody").isEmpty)
            }
        }
    }

    @Test func readsByType() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                _ = try await fill(log)
                let b = try log.read(type: "B")
                #expect(b.map(\.position) == Array(stride(from: 2, through: 30, by: 3)))
                #expect(b.allSatisfy { $0.type == "B" })
                #expect(try log.read(type: "B", after: 10, limit: 2).map(\.position) == [11, 14])
                #expect(try log.read(type: "B", after: 29).isEmpty)
                #expect(try log.read(type: "B", after: .max).isEmpty)
                #expect(try log.read(type: "Nope").isEmpty)
                #expect(try log.read(type: "A", limit: 0).isEmpty)
            }
        }
    }

    @Test func readsByIdAndPosition() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let all = try await fill(log)
                for (index, event) in all.enumerated() {
                    let stored = try #require(try log.event(id: event.id))
                    #expect(stored.position == UInt64(index + 1))
                    #expect(try log.event(at: stored.position) == stored)
                }
                #expect(try log.event(id: UUIDv7.make()) == nil)
                #expect(try log.event(at: 0) == nil)
                #expect(try log.event(at: 31) == nil)
            }
        }
    }

    @Test func anEmptyLogReadsAsEmpty() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                #expect(try log.head() == 0)
                #expect(try log.read().isEmpty)
                #expect(try log.read(type: "A").isEmpty)
                #expect(try log.read(stream: "s").isEmpty)
                let report = try log.verify()
                #expect(report.isIntact)
                #expect(report.eventsChecked == 0)
                #expect(report.head == 0)
                #expect(report.headHash == String(repeating: "0", count: 64))
            }
        }
    }

    @Test func typeReadsCrossItsInternalChunkBoundary() async throws {
        try await TestStore.with { store in
            try await store.withLog(.init(noSync: true)) { log throws in
                // More than one 50,000-record scan chunk, with matches on both sides of the boundary.
                for start in stride(from: 0, to: 60_000, by: 5_000) {
                    let events = (start..<start + 5_000).map { n in makeEvent(n % 10_000 == 9_999 ? "Rare" : "Common", "{}") }
                    try await log.append(to: "bulk-\(start)", events: events)
                }
                #expect(try log.read(type: "Rare").map(\.position) == stride(from: 10_000, through: 60_000, by: 10_000).map(UInt64.init))
                #expect(try log.read(type: "Rare", after: 10_000, limit: 2).map(\.position) == [20_000, 30_000])
            }
        }
    }

    @Test func firstOwnPositionsOfStreamsAsTheyGrow() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                func foreign(_ stream: String, _ version: UInt64) -> ForeignEvent {
                    ForeignEvent(id: UUIDv7.make(), stream: stream, version: version, type: "TodoCompleted",
                                 timestampMilliseconds: 1_700_000_000_000, origin: "device-b", data: Data("{}".utf8))
                }
                _ = try await log.ingest([foreign("todo-1", 1), foreign("todo-1", 2)])                       // 1, 2
                try await log.append(to: "todo-2", events: [makeEvent()])                                     // 3
                #expect(try log.firstOwnPositions(inStreams: ["todo-1", "todo-2", "none", "todo-1"]) == ["todo-2": 3])
                // Remembered answers are extended by what the streams gained since.
                try await log.append(to: "todo-1", events: [makeEvent(), makeEvent()])                        // 4, 5
                _ = try await log.ingest([foreign("todo-2", 2), foreign("todo-3", 1)])                        // 6, 7
                // A schema version above 1 is stored in the record format that carries it.
                try await log.append(to: "todo-3", events: [NewEvent(id: UUIDv7.make(), type: "TodoCompleted",
                                                                     schemaVersion: 2, data: Data("{}".utf8))])   // 8
                // Only what comes before `end` counts; before the device's first write, nothing is looked up.
                #expect(try log.firstOwnPositions(inStreams: ["todo-1", "todo-2"], before: 3) == [:])
                #expect(try log.firstOwnPositions(inStreams: ["todo-1", "todo-3"], before: 5) == ["todo-1": 4])
                #expect(try log.firstOwnPositions(inStreams: ["todo-1", "todo-2", "todo-3", "none"])
                        == ["todo-1": 4, "todo-2": 3, "todo-3": 8])
                #expect(try log.firstOwnPositions(inStreams: ["todo-1", "todo-2", "todo-3"], before: 4) == ["todo-2": 3])
                #expect(try log.firstOwnPositions(inStreams: ["todo-3"]) == ["todo-3": 8])
                #expect(try log.firstOwnPositions(inStreams: [String]()) == [:])
            }
            // Another process (a fresh log) answers the same from the records alone.
            try await store.withLog { log throws in
                #expect(try log.firstOwnPositions(inStreams: ["todo-1", "todo-2", "todo-3", "none"])
                        == ["todo-1": 4, "todo-2": 3, "todo-3": 8])
            }
        }
    }

    @Test func firstOwnPositionsRefuseADamagedRecord() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "todo-1", events: [makeEvent(), makeEvent(), makeEvent()])
            }
            try RawLog.with(store.logPath) { raw throws in try raw.modifyRecord(at: 1) { $0[$0.count - 2] ^= 0x10 } }
            try await store.withLog { log throws in
                #expect(throws: EventLogError.corruptRecord(position: 1, reason: "checksum mismatch")) {
                    try log.firstOwnPositions(inStreams: ["todo-1"])
                }
            }
        }
    }
}

import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

@Suite(.timeLimit(.minutes(10)))
struct AppendTests {
    @Test func firstAppendStartsAtPositionOneAndVersionOne() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                #expect(try log.head() == 0)
                let result = try await log.append(to: "todo-1", expected: .noStream, events: [makeEvent(), makeEvent()])
                #expect(result.positions == [1, 2])
                #expect(result.appended == 2)
                #expect(result.head == 2)
                let events = try log.read()
                #expect(events.map(\.position) == [1, 2])
                #expect(events.map(\.version) == [1, 2])
                #expect(events.allSatisfy { $0.stream == "todo-1" && $0.origin == log.deviceID })
                #expect(try log.version(of: "todo-1") == 2)
                #expect(try log.version(of: "todo-2") == 0)
            }
        }
    }

    @Test func storedEventKeepsEverythingGiven() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let id = UUIDv7.make()
                let when = Date(timeIntervalSince1970: 1_795_314_600.123_9)   // 2026-11-22T02:30:00.123Z
                let event = NewEvent(id: id, type: "TodoCreated", data: Data(#"{"title":"Milk ☕","n":[1,2]}"#.utf8), timestamp: when)
                try await log.append(to: "todo-7", events: [event])
                let stored = try #require(try log.event(id: id))
                #expect(stored.id == id)
                #expect(stored.type == "TodoCreated")
                #expect(stored.stream == "todo-7")
                #expect(stored.data == event.data)
                #expect(stored.timestampMilliseconds == 1_795_314_600_123)   // UTC milliseconds, rounded down
                #expect(Timestamp.format(milliseconds: stored.timestampMilliseconds) == "2026-11-22T02:30:00.123Z")
                #expect(stored.hash.count == 32)
                #expect(stored.origin == log.deviceID)
            }
        }
    }

    @Test func batchWithOneConflictingStreamWritesNothing() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "a", events: [makeEvent(), makeEvent()])
                try await log.append(to: "b", events: [makeEvent()])
                let headBefore = try log.head()
                let hashBefore = try #require(try log.event(at: headBefore)).hash
                let fresh = [makeEvent(), makeEvent()]
                await #expect(throws: EventLogError.conflict(stream: "b", expected: .exact(2), actual: 1)) {
                    try await log.append([
                        StreamAppend(stream: "a", expected: .exact(2), events: [fresh[0]]),   // holds
                        StreamAppend(stream: "c", expected: .noStream, events: [fresh[1]]),   // holds
                        StreamAppend(stream: "b", expected: .exact(2), events: [makeEvent()]), // does not
                    ])
                }
                #expect(try log.head() == headBefore)
                #expect(try log.event(at: headBefore)?.hash == hashBefore)
                #expect(try log.version(of: "a") == 2)
                #expect(try log.version(of: "c") == 0)
                #expect(try log.event(id: fresh[0].id) == nil)
                #expect(try log.event(id: fresh[1].id) == nil)
                // The refused batch left the log usable: the next append takes the next position.
                let next = try await log.append(to: "c", expected: .noStream, events: [fresh[1]])
                #expect(next.positions == [headBefore + 1])
                #expect(try log.verify().isIntact)
            }
        }
    }

    @Test func multiStreamBatchIsAtomicAndNumbersEachStream() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "x", events: [makeEvent()])
                let result = try await log.append([
                    StreamAppend(stream: "x", expected: .exact(1), events: [makeEvent(), makeEvent()]),
                    StreamAppend(stream: "y", expected: .noStream, events: [makeEvent()]),
                ])
                #expect(result.positions == [2, 3, 4])
                #expect(try log.read(stream: "x").map(\.version) == [1, 2, 3])
                #expect(try log.read(stream: "y").map(\.version) == [1])
                #expect(try log.read(stream: "y").map(\.position) == [4])
            }
        }
    }

    /// A stream named by two appends of one batch is checked against the first one's expected
    /// version; its events are numbered on from one append to the next.
    @Test func aStreamTwiceInOneBatchIsNumberedOn() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "y", events: [makeEvent()])
                let result = try await log.append([
                    StreamAppend(stream: "x", expected: .noStream, events: [makeEvent()]),
                    StreamAppend(stream: "y", expected: .exact(1), events: [makeEvent()]),
                    StreamAppend(stream: "z", expected: .noStream, events: [makeEvent()]),
                    StreamAppend(stream: "y", expected: .any, events: [makeEvent(), makeEvent()]),
                ])
                #expect(result.positions == [2, 3, 4, 5, 6])
                #expect(try log.read(stream: "x").map(\.version) == [1])
                #expect(try log.read(stream: "y").map(\.version) == [1, 2, 3, 4])
                #expect(try log.read(stream: "y").map(\.position) == [1, 3, 5, 6])
                #expect(try log.read(stream: "z").map(\.version) == [1])
                #expect(try log.version(of: "y") == 4)
            }
        }
    }

    /// An append to a stream the batch appended to before is judged after those appends: a
    /// version from before the batch on the later one is stale, and refuses the whole batch.
    @Test func aStreamsLaterAppendInABatchIsJudgedAfterItsEarlierOnes() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "x", events: [makeEvent(), makeEvent(), makeEvent()])
                let stored = makeEvent()
                try await log.append(to: "w", events: [stored])
                let result = try await log.append([
                    StreamAppend(stream: "x", expected: .exact(3), events: [makeEvent(), stored, makeEvent()]),
                    StreamAppend(stream: "x", expected: .exact(5), events: [makeEvent()]),
                ])
                #expect(result.appended == 3)   // the id stored before is not a new event of "x"
                #expect(try log.version(of: "x") == 6)
                for stale in [ExpectedVersion.exact(6), .noStream] {
                    await #expect(throws: EventLogError.conflict(stream: "x", expected: stale, actual: 7)) {
                        try await log.append([
                            StreamAppend(stream: "x", expected: .exact(6), events: [makeEvent()]),
                            StreamAppend(stream: "x", expected: stale, events: [makeEvent()]),
                        ])
                    }
                }
                #expect(try log.head() == 7)
                #expect(try log.version(of: "x") == 6)
            }
        }
    }

    @Test func reappendingStoredIdsWritesNothingAndReturnsOriginalPositions() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let events = [makeEvent(), makeEvent(), makeEvent()]
                try await log.append(to: "s", events: [makeEvent()])
                let first = try await log.append(to: "s", expected: .exact(1), events: events)
                #expect(first.positions == [2, 3, 4])
                try await log.append(to: "other", events: [makeEvent()])
                let head = try log.head()
                // A retry of the same batch (even with an expected version that no longer holds).
                let retry = try await log.append(to: "s", expected: .exact(1), events: events)
                #expect(retry.positions == [2, 3, 4])
                #expect(retry.appended == 0)
                #expect(retry.head == head)
                #expect(try log.head() == head)
                #expect(try log.version(of: "s") == 4)
                #expect(try log.read(stream: "s").count == 4)
                #expect(try log.verify().isIntact)
            }
        }
    }

    @Test func sameIdTwiceInOneBatchIsStoredOnce() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let event = makeEvent()
                let result = try await log.append(to: "s", events: [event, makeEvent(), event])
                #expect(result.positions == [1, 2, 1])
                #expect(result.appended == 2)
                #expect(try log.head() == 2)
                #expect(try log.verify().isIntact)
            }
        }
    }

    /// Ids beyond the last one indexed go to the index's end without a lookup; older ids (events
    /// made before others, pulled late) are looked up and put in their place. Either way each
    /// is found again, by id and as a retry.
    @Test func idsOutOfTimeOrderAreIndexedAndFoundAgain() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                func id(_ milliseconds: UInt64) -> UUID {
                    UUIDv7.make(milliseconds: 1_800_000_000_000 + milliseconds, sequence: 0, random: milliseconds)
                }
                // Descending inside one batch, every id beyond the (empty) index.
                let first = [id(50), id(40), id(60)].map { makeEvent(id: $0) }
                #expect(try await log.append(to: "a", events: first).positions == [1, 2, 3])
                // Below every stored id, between two, beyond them all, below again.
                let second = [id(10), id(45), id(70), id(5)].map { makeEvent(id: $0) }
                #expect(try await log.append(to: "b", events: second).positions == [4, 5, 6, 7])
                // A stored id (at 2) beside a new one below the last stored.
                let mixed = try await log.append(to: "b", events: [makeEvent(id: id(40)), makeEvent(id: id(20))])
                #expect(mixed.positions == [2, 8] && mixed.appended == 1)
                let foreign = ForeignEvent(id: id(1), stream: "c", version: 1, type: "Tested", timestampMilliseconds: 1,
                                           origin: "device-b", data: Data("{}".utf8))
                #expect(try await log.ingest([foreign]).accepted == 1)
                #expect(try await log.ingest([foreign]).duplicates == 1)

                let expected: [(UUID, UInt64)] = [(id(50), 1), (id(40), 2), (id(60), 3), (id(10), 4), (id(45), 5),
                                                  (id(70), 6), (id(5), 7), (id(20), 8), (id(1), 9)]
                for (id, position) in expected {
                    #expect(try log.event(id: id)?.position == position)
                }
                let retry = try await log.append(to: "b", expected: .exact(0), events: second)
                #expect(retry.positions == [4, 5, 6, 7] && retry.appended == 0)
                #expect(try log.head() == 9)
                #expect(try log.verify().isIntact)
            }
        }
    }

    @Test func noStreamOnAnExistingStreamIsAConflict() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "user-1", events: [makeEvent(), makeEvent(), makeEvent()])
                let error = await #expect(throws: EventLogError.self) {
                    try await log.append(to: "user-1", expected: .noStream, events: [makeEvent()])
                }
                #expect(error == .conflict(stream: "user-1", expected: .noStream, actual: 3))
                let message = try #require(error).description
                #expect(message.contains("user-1"))
                #expect(message.contains("no stream"))
                #expect(message.contains("3"))
                #expect(try log.head() == 3)
            }
        }
    }

    @Test func wrongExactVersionIsAConflict() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "todo-9", events: [makeEvent(), makeEvent()])
                for wrong: UInt64 in [0, 1, 3, 99] {
                    let error = await #expect(throws: EventLogError.self) {
                        try await log.append(to: "todo-9", expected: .exact(wrong), events: [makeEvent()])
                    }
                    #expect(error == .conflict(stream: "todo-9", expected: .exact(wrong), actual: 2))
                    #expect(error?.description == "conflict on stream 'todo-9': expected version \(wrong), found version 2")
                }
                #expect(try log.head() == 2)
                try await log.append(to: "todo-9", expected: .exact(2), events: [makeEvent()])
                #expect(try log.version(of: "todo-9") == 3)
            }
        }
    }

    @Test func exactVersionOnAMissingStreamIsAConflictNamingNoStream() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let error = await #expect(throws: EventLogError.self) {
                    try await log.append(to: "ghost", expected: .exact(1), events: [makeEvent()])
                }
                #expect(error == .conflict(stream: "ghost", expected: .exact(1), actual: 0))
                #expect(error?.description == "conflict on stream 'ghost': expected version 1, found no stream")
                #expect(try log.head() == 0)
            }
        }
    }

    @Test func anyAlwaysAppendsAndExpectedVersionsMatchStreamPrefixes() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                // "ab" must not count as part of stream "a" (and the other way around).
                try await log.append(to: "ab", events: [makeEvent(), makeEvent()])
                try await log.append(to: "a", expected: .noStream, events: [makeEvent()])
                try await log.append(to: "a", expected: .any, events: [makeEvent()])
                try await log.append(to: "b", expected: .noStream, events: [makeEvent()])
                #expect(try log.version(of: "a") == 2)
                #expect(try log.version(of: "ab") == 2)
                #expect(try log.version(of: "") == 0)
                #expect(try log.read(stream: "a").map(\.position) == [3, 4])
            }
        }
    }

    @Test(arguments: [
        ("", "Tested", #"{"k":1}"#, "stream name must not be empty"),
        ("s", "", #"{"k":1}"#, "event type must not be empty"),
        ("s", "Tested", "[1,2]", "JSON object"),
        ("s", "Tested", "42", "JSON object"),
        ("s", "Tested", "", "JSON object"),
        ("s", "Tested", #""text""#, "JSON object"),
        ("s", "Tested", #"{"a":1,}"#, "event data is not valid JSON: unexpected '}' at byte 7"),
        ("s", "Tested", #"{"a":1,"a":2}"#, #"event data is not valid JSON: duplicate key "a" at byte 7"#),
        ("s", "Tested", #"{"a":1} {}"#, "event data is not valid JSON: unexpected '{' at byte 8"),
        ("a\u{0}b", "Tested", #"{"k":1}"#, "NUL"),
        (String(repeating: "s", count: 513), "Tested", #"{"k":1}"#, "longer than"),
    ])
    func invalidEventsAreRefusedAndNothingIsWritten(stream: String, type: String, json: String, reason: String) async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "ok", events: [makeEvent()])
                let good = makeEvent()
                let error = await #expect(throws: EventLogError.self) {
                    // The valid event in the same batch is refused with it.
                    try await log.append([
                        StreamAppend(stream: "ok", events: [good]),
                        StreamAppend(stream: stream, events: [makeEvent(type, json)]),
                    ])
                }
                guard case .invalidEvent(let why)? = error else {
                    Issue.record("expected invalidEvent, got \(String(describing: error))")
                    return
                }
                #expect(why.contains(reason))
                #expect(error?.description.hasPrefix("invalid event: ") == true)
                #expect(try log.head() == 1)
                #expect(try log.event(id: good.id) == nil)
            }
        }
    }

    @Test func anEmptyAppendIsRefused() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                await #expect(throws: EventLogError.self) { try await log.append([]) }
                await #expect(throws: EventLogError.self) { try await log.append(to: "s", events: []) }
                #expect(try log.head() == 0)
            }
        }
    }

    @Test func appendAfterCloseFailsWithClosed() async throws {
        try await TestStore.with { store in
            let log = try store.open()
            try await log.append(to: "s", events: [makeEvent()])
            log.close()
            log.close()   // a second close returns at once
            await #expect(throws: EventLogError.closed) { try await log.append(to: "s", events: [makeEvent()]) }
            #expect(try log.head() == 1)   // reads still work until the log is released
        }
    }

    @Test func ingestKeepsForeignFieldsAndSkipsKnownIds() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let local = makeEvent()
                try await log.append(to: "todo-1", events: [local])
                let foreign = (1...3).map { n in
                    ForeignEvent(id: UUIDv7.make(), stream: "todo-2", version: UInt64(n), type: "TodoCreated",
                                 timestampMilliseconds: 1_700_000_000_000 + Int64(n), origin: "device-b",
                                 data: Data(#"{"n":\#(n)}"#.utf8))
                }
                let first = try await log.ingest(foreign)
                #expect((first.accepted, first.duplicates, first.head) == (3, 0, 4))
                let stored = try log.read(stream: "todo-2")
                #expect(stored.map(\.id) == foreign.map(\.id))
                #expect(stored.map(\.origin) == ["device-b", "device-b", "device-b"])
                #expect(stored.map(\.timestampMilliseconds) == foreign.map(\.timestampMilliseconds))
                #expect(stored.map(\.position) == [2, 3, 4])

                // A retried push, plus one new event and one repeated inside the batch.
                let extra = ForeignEvent(id: UUIDv7.make(), stream: "todo-2", version: 4, type: "TodoCompleted",
                                         timestampMilliseconds: 1_700_000_000_010, origin: "device-b", data: Data("{}".utf8))
                let again = try await log.ingest(foreign + [extra, extra])
                #expect((again.accepted, again.duplicates, again.head) == (1, 4, 5))
                #expect(try log.head() == 5)
                #expect(try log.event(id: extra.id)?.position == 5)
                #expect(try log.verify().isIntact)
                let empty = try await log.ingest([])
                #expect((empty.accepted, empty.duplicates, empty.head) == (0, 0, 5))
            }
        }
    }

    @Test func ingestWithOneInvalidEventStoresNothing() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let good = ForeignEvent(id: UUIDv7.make(), stream: "s", version: 1, type: "T", timestampMilliseconds: 1,
                                        origin: "o", data: Data("{}".utf8))
                var bad = good
                bad.id = UUIDv7.make()
                bad.data = Data("[]".utf8)
                await #expect(throws: EventLogError.self) { try await log.ingest([good, bad]) }
                var zeroVersion = good
                zeroVersion.id = UUIDv7.make()
                zeroVersion.version = 0
                await #expect(throws: EventLogError.self) { try await log.ingest([good, zeroVersion]) }
                var longOrigin = good
                longOrigin.id = UUIDv7.make()
                longOrigin.origin = String(repeating: "o", count: 70_000)   // more than a record's u16 length holds
                await #expect(throws: EventLogError.invalidEvent("origin is longer than 256 bytes")) {
                    try await log.ingest([good, longOrigin])
                }
                #expect(try log.head() == 0)
            }
        }
    }

    @Test func conflictsInOneGroupCommitDoNotSpoilTheOthers() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "shared", events: [makeEvent()])
                // Many appenders race for version 2 of one stream: exactly one wins, the rest conflict.
                let outcomes = await withTaskGroup(of: Bool.self, returning: [Bool].self) { group in
                    for _ in 0..<20 {
                        group.addTask {
                            (try? await log.append(to: "shared", expected: .exact(1), events: [makeEvent()])) != nil
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 }.count == 1)
                #expect(try log.version(of: "shared") == 2)
                #expect(try log.head() == 2)
                #expect(try log.verify().isIntact)
            }
        }
    }
}

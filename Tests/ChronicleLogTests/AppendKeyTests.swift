import ChronicleTestSupport
import ChronicleLog
import Foundation
import ChronicleLMDB
import Testing

/// Key conditions (``AppendKey``): what a decision read is part of its append's condition.
@Suite(.timeLimit(.minutes(5)))
struct AppendKeyTests {
    @Test func unchangedFailsOnceAnotherBatchTouchedTheKey() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let read = try log.head()
                #expect(try log.lastTouch(of: "user-1/todos") == nil)
                let touching = try await log.append([StreamAppend(stream: "todo-1", events: [makeEvent()])],
                                                    keys: [.touch("user-1/todos")])
                #expect(try log.lastTouch(of: "user-1/todos") == touching.head)
                let head = try log.head()
                await #expect(throws: EventLogError.keyConflict(key: "user-1/todos", reason: "touched at position 1, after 0")) {
                    try await log.append([StreamAppend(stream: "user-1", events: [makeEvent()])],
                                         keys: [.unchanged("user-1/todos", since: read)])
                }
                #expect(try log.head() == head)
                // Decided again on what is there now, it goes through; other keys never mattered.
                let again = try await log.append([StreamAppend(stream: "user-1", events: [makeEvent()])],
                                                 keys: [.unchanged("user-1/todos", since: try log.head()),
                                                        .unchanged("user-2/todos", since: 0)])
                #expect(again.appended == 1)
            }
        }
    }

    @Test func aClaimedKeyIsUniqueUntilReleased() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append([StreamAppend(stream: "tag-a", events: [makeEvent()])], keys: [.claim("name:work", by: "tag-a")])
                #expect(try log.holder(of: "name:work") == "tag-a")
                let head = try log.head()
                await #expect(throws: EventLogError.keyConflict(key: "name:work", reason: "held by 'tag-a'")) {
                    try await log.append([StreamAppend(stream: "tag-b", events: [makeEvent()])], keys: [.claim("name:work", by: "tag-b")])
                }
                await #expect(throws: EventLogError.keyConflict(key: "name:work", reason: "held by 'tag-a'")) {
                    try await log.append([StreamAppend(stream: "tag-b", events: [makeEvent()])], keys: [.release("name:work", by: "tag-b")])
                }
                #expect(try log.head() == head)
                // The holder may claim again (a rename to another case of its own name), then release.
                try await log.append([StreamAppend(stream: "tag-a", events: [makeEvent()])],
                                     keys: [.release("name:work", by: "tag-a"), .claim("name:work", by: "tag-a")])
                #expect(try log.holder(of: "name:work") == "tag-a")
                try await log.append([StreamAppend(stream: "tag-a", events: [makeEvent()])], keys: [.release("name:work", by: "tag-a")])
                #expect(try log.holder(of: "name:work") == nil)
                try await log.append([StreamAppend(stream: "tag-b", events: [makeEvent()])], keys: [.claim("name:work", by: "tag-b")])
                #expect(try log.holder(of: "name:work") == "tag-b")
            }
        }
    }

    @Test("a batch may claim a key its holder releases in the same batch, and no other")
    func aKeyPassesOnWithinOneBatch() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append([StreamAppend(stream: "tag-a", events: [makeEvent()])], keys: [.claim("name:work", by: "tag-a")])
                // tag-a renamed, its name taken by a new tag-b: one batch.
                try await log.append([StreamAppend(stream: "tag-a", events: [makeEvent()]), StreamAppend(stream: "tag-b", events: [makeEvent()])],
                                     keys: [.release("name:work", by: "tag-a"), .claim("name:work", by: "tag-b")])
                #expect(try log.holder(of: "name:work") == "tag-b")
                // A release by one that does not hold the key passes nothing on.
                await #expect(throws: EventLogError.keyConflict(key: "name:work", reason: "held by 'tag-b'")) {
                    try await log.append([StreamAppend(stream: "tag-c", events: [makeEvent()])],
                                         keys: [.release("name:work", by: "tag-a"), .claim("name:work", by: "tag-c")])
                }
                #expect(try log.holder(of: "name:work") == "tag-b")
            }
        }
    }

    @Test("a batch's keys take effect in its order: a key claimed, then released, is free; handed on in either order")
    func keysTakeEffectInTheBatchsOrder() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                // A folder renamed to Books, then deleted, in one step: the name is free after it.
                try await log.append([StreamAppend(stream: "folder-a", events: [makeEvent(), makeEvent()])],
                                     keys: [.claim("name:books", by: "folder-a"), .release("name:books", by: "folder-a")])
                #expect(try log.holder(of: "name:books") == nil)
                // A claim by a new holder before the old holder's release keeps the new one.
                try await log.append([StreamAppend(stream: "folder-b", events: [makeEvent()])], keys: [.claim("name:work", by: "folder-b")])
                try await log.append([StreamAppend(stream: "folder-c", events: [makeEvent()]), StreamAppend(stream: "folder-b", events: [makeEvent()])],
                                     keys: [.claim("name:work", by: "folder-c"), .release("name:work", by: "folder-b")])
                #expect(try log.holder(of: "name:work") == "folder-c")
            }
        }
    }

    @Test func aRefusedBatchWritesNoKey() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "s", events: [makeEvent()])
                await #expect(throws: EventLogError.self) {
                    try await log.append([StreamAppend(stream: "s", expected: .noStream, events: [makeEvent()])],
                                         keys: [.claim("k", by: "s"), .touch("t")])
                }
                #expect(try log.holder(of: "k") == nil)
                #expect(try log.lastTouch(of: "t") == nil)
            }
        }
    }

    @Test func aRetryOfStoredIdsIsNotJudgedAgain() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let event = makeEvent()
                let first = try await log.append([StreamAppend(stream: "tag-a", events: [event])], keys: [.claim("name", by: "tag-a")])
                try await log.append([StreamAppend(stream: "tag-a", events: [makeEvent()])], keys: [.release("name", by: "tag-a")])
                try await log.append([StreamAppend(stream: "tag-b", events: [makeEvent()])], keys: [.claim("name", by: "tag-b")])
                // The same batch again (a lost answer): its original position, nothing claimed.
                let retry = try await log.append([StreamAppend(stream: "tag-a", events: [event])], keys: [.claim("name", by: "tag-a")])
                #expect(retry.positions == first.positions)
                #expect(retry.appended == 0)
                #expect(try log.holder(of: "name") == "tag-b")
            }
        }
    }

    @Test func malformedKeysAreRefusedBeforeQueueing() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                for keys: [AppendKey] in [[.touch("")], [.claim(String(repeating: "x", count: AppendKey.maxKeyBytes + 1), by: "s")],
                                          [.claim("k", by: "")]] {
                    await #expect(throws: EventLogError.self) {
                        try await log.append([StreamAppend(stream: "s", events: [makeEvent()])], keys: keys)
                    }
                }
                #expect(try log.head() == 0)
            }
        }
    }

    /// Many appenders in one group commit: for each key exactly one claim wins, and a refused
    /// appender does not fail the others of its group.
    @Test(.timeLimit(.minutes(5))) func oneClaimWinsPerKeyInsideAGroupCommit() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let outcomes = await withTaskGroup(of: (key: Int, won: Bool).self) { group in
                    for appender in 0..<64 {
                        group.addTask {
                            let key = appender % 4
                            do {
                                try await log.append([StreamAppend(stream: "tag-\(appender)", expected: .noStream, events: [makeEvent()])],
                                                     keys: [.claim("name:\(key)", by: "tag-\(appender)")])
                                return (key, true)
                            } catch {
                                return (key, false)
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                for key in 0..<4 {
                    #expect(outcomes.filter { $0.key == key && $0.won }.count == 1)
                }
                #expect(try log.head() == 4)
                for key in 0..<4 {
                    let holder = try #require(try log.holder(of: "name:\(key)"))
                    #expect(try log.version(of: holder) == 1)
                }
            }
        }
    }

    /// Touches are written once per group commit; an appender later in the group must still
    /// see the touch of an earlier one: of many that read the key untouched, one goes through.
    @Test(.timeLimit(.minutes(5))) func aTouchEarlierInTheGroupFailsALaterCondition() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let read = try log.head()
                let wins = await withTaskGroup(of: Bool.self) { group in
                    for appender in 0..<32 {
                        group.addTask {
                            (try? await log.append([StreamAppend(stream: "s-\(appender)", events: [makeEvent()])],
                                                   keys: [.unchanged("k", since: read), .touch("k")])) != nil
                        }
                    }
                    return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
                }
                #expect(wins == 1)
                #expect(try log.head() == 1)
                #expect(try log.lastTouch(of: "k") == 1)
                // Touched twice in one batch: the batch's last position.
                let both = try await log.append([StreamAppend(stream: "a", events: [makeEvent()]),
                                                 StreamAppend(stream: "b", events: [makeEvent()])],
                                                keys: [.touch("k"), .touch("j"), .touch("k")])
                #expect(try log.lastTouch(of: "k") == both.head)
                #expect(try log.lastTouch(of: "j") == both.head)
            }
        }
    }

    /// The touches of one group commit are written together when it ends, each key with the
    /// last position of the batch that touched it, whatever order the keys sort in.
    @Test(.timeLimit(.minutes(5))) func eachKeyTouchedInAGroupCommitKeepsItsOwnBatchsPosition() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let touched = try await withThrowingTaskGroup(of: (String, UInt64).self) { group in
                    for appender in 0..<24 {
                        group.addTask {
                            let key = "user-\(23 - appender)/todos"
                            let result = try await log.append([StreamAppend(stream: "todo-\(appender)", events: [makeEvent(), makeEvent()])],
                                                              keys: [.touch(key)])
                            return (key, result.head)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(Set(touched.map(\.1)).count == 24)
                for (key, position) in touched {
                    #expect(try log.lastTouch(of: key) == position, "\(key)")
                }
            }
        }
    }

    /// Touches after the checkpoint live in `touch-log`, read into memory by each process; at
    /// the checkpoint (here every 10 events) they move into `touches`. Either way a key's last
    /// touch is found, in this process and after the store is opened again.
    @Test func touchesAreFoundBeforeAndAfterTheirCheckpointAndAcrossAReopen() async throws {
        try await TestStore.with { store in
            let options = EventLog.Options(streamIndexCheckpoint: 10)
            var last: [String: UInt64] = [:]
            try await store.withLog(options) { log throws in
                for round in 0..<9 {
                    let keys = ["k\(round % 3)", "k\(round % 5 + 3)"]
                    let result = try await log.append([StreamAppend(stream: "s-\(round)", events: [makeEvent(), makeEvent(), makeEvent()])],
                                                      keys: keys.map { .touch($0) })
                    for key in keys { last[key] = result.head }
                    for (key, position) in last { #expect(try log.lastTouch(of: key) == position, "\(key) after round \(round)") }
                    #expect(try log.lastTouch(of: "never") == nil)
                }
                // A condition on a touch from before the checkpoint still holds the log to it.
                await #expect(throws: EventLogError.keyConflict(key: "k0", reason: "touched at position \(last["k0"]!), after 1")) {
                    try await log.append([StreamAppend(stream: "late", events: [makeEvent()])], keys: [.unchanged("k0", since: 1)])
                }
            }
            let (indexed, logged) = try RawLog.with(store.logPath) { raw in
                (try raw.meta("touches-indexed"), try raw.environment.read { txn in try txn.count(try txn.openDatabase(named: "touch-log", create: false)) })
            }
            #expect(indexed == RawLog.key(24))   // checkpoints at the 4th and 8th batches (12 and 24 events)
            #expect(logged == 1)                 // the 9th batch's touches
            try await store.withLog(options) { log throws in
                for (key, position) in last { #expect(try log.lastTouch(of: key) == position, "\(key) after reopening") }
            }
        }
    }

    /// A store of format 6 kept every touch in `touches`: it opens with an empty `touch-log` and
    /// its head as the touches' checkpoint, and its touches are found as before.
    @Test func aFormatSixStoreKeepsItsTouches() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append([StreamAppend(stream: "a", events: [makeEvent(), makeEvent()])])
            }
            try Environment(path: store.logPath).write { txn in
                try txn.drop(try txn.openDatabase(named: "touch-log", create: false))
                let meta = try txn.openDatabase(named: "meta", create: false)
                _ = try txn.delete(meta, key: Array("touches-indexed".utf8))
                try txn.put(meta, key: Array("format".utf8), value: [6])
                try txn.put(try txn.openDatabase(named: "touches", create: false), key: Array("k".utf8), value: RawLog.key(2))
            }
            try await store.withLog { log throws in
                #expect(try log.lastTouch(of: "k") == 2)
                let next = try await log.append([StreamAppend(stream: "b", events: [makeEvent()])], keys: [.touch("j")])
                #expect(try log.lastTouch(of: "j") == next.head)
                #expect(try log.lastTouch(of: "k") == 2)
            }
            let (format, indexed) = try RawLog.with(store.logPath) { raw in (try raw.meta("format"), try raw.meta("touches-indexed")) }
            #expect(format == [8])
            #expect(indexed == RawLog.key(2))
        }
    }

    /// A store written before format 3 has no key databases: it opens, gains them (and format 4's upstream), and its
    /// events stay as they were.
    @Test func aFormatTwoStoreIsUpgradedWhenItOpens() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "a", events: [makeEvent(), makeEvent()])
            }
            // Make it what a format-2 release left: no `touches`, no `claims`, format byte 2.
            do {
                let environment = try Environment(path: store.logPath)
                try environment.write { txn in
                    try txn.drop(try txn.openDatabase(named: "touches", create: false))
                    try txn.drop(try txn.openDatabase(named: "claims", create: false))
                    try txn.put(try txn.openDatabase(named: "meta", create: false), key: Array("format".utf8), value: [2])
                }
            }
            try await store.withLog { log throws in
                #expect(try log.read().map(\.version) == [1, 2])
                #expect(try log.holder(of: "k") == nil)
                try await log.append([StreamAppend(stream: "a", expected: .exact(2), events: [makeEvent()])], keys: [.claim("k", by: "a")])
                #expect(try log.holder(of: "k") == "a")
                let report = try log.verify()
                #expect(report.isIntact)
            }
            let format = try Environment(path: store.logPath).read { txn in
                try txn.get(try txn.openDatabase(named: "meta", create: false), key: Array("format".utf8)).map { Array($0) }
            }
            #expect(format == [8])
        }
    }
}

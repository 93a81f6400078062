import ChronicleTestSupport
@testable import ChronicleLog
import Testing

/// ``TouchIndex``'s table in memory against snapshots older than it: a read that began before
/// later commits must see the touches as of its own head, and leave the table as it was.
@Suite(.timeLimit(.minutes(5)))
struct TouchIndexTests {
    @Test func aSnapshotOlderThanTheTableSeesTheTouchesAsOfItsHead() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                var heads: [UInt64] = []
                for round in 0..<3 {   // "k" touched by each batch, "j" by the first only
                    let keys: [AppendKey] = round == 0 ? [.touch("k"), .touch("j")] : [.touch("k")]
                    let result = try await log.append([StreamAppend(stream: "s-\(round)", events: [makeEvent(), makeEvent()])], keys: keys)
                    heads.append(result.head)
                }
                #expect(heads == [2, 4, 6])
                let index = log.touchIndex
                try log.withRead { txn in
                    let now = try index.snapshot(txn)
                    #expect(try index.lastTouch(of: "k", in: now, txn) == 6)   // brings the table up to 6
                    for (head, expected) in [(2, 2), (3, 2), (4, 4), (5, 4)] as [(UInt64, UInt64)] {
                        let older = TouchIndex.Snapshot(checkpoint: now.checkpoint, head: head)
                        #expect(try index.lastTouch(of: "k", in: older, txn) == expected, "as of \(head)")
                        #expect(try index.lastTouch(of: "j", in: older, txn) == 2)
                    }
                    let beforeAll = TouchIndex.Snapshot(checkpoint: now.checkpoint, head: 1)
                    #expect(try index.lastTouch(of: "k", in: beforeAll, txn) == nil)
                    #expect(try index.lastTouch(of: "k", in: now, txn) == 6, "the table is the newest still")
                }
            }
        }
    }
}

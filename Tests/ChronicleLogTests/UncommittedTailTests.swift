import ChronicleTestSupport
@testable import ChronicleLog
import Foundation
import Testing

/// The writer adds its events to the stream index's tail as it writes them, before they commit.
@Suite(.timeLimit(.minutes(10)))
struct UncommittedTailTests {
    /// Entries of a write that never committed are not seen by a reader; once another process
    /// has committed an event at their position, a reader drops them and reads the log.
    @Test func entriesOfAWriteThatNeverCommittedGiveWayToTheLog() async throws {
        let torture = try Products.torture()
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "p-0", events: [makeEvent()])   // position 1, version 1
                // As if this process's writer had written version 7 of "p-0" at position 2 and its
                // transaction had then failed, its entry not yet dropped.
                log.streamIndex.add(stream: StreamName("p-0"), position: 2, version: 7)
                #expect(try log.version(of: "p-0") == 1)
                // Another process appends position 2, version 2 of "p-0".
                let child = try await ChildProcess(torture, [
                    "append-burst", "--store", store.root.path, "--count", "1", "--stream-prefix", "p", "--streams", "1",
                ])
                let exit = try await withTimeout(.seconds(60), "writer exit") { await child.waitForExit() }
                #expect(exit.status == 0, "\(child.standardErrorText)")
                #expect(try log.version(of: "p-0") == 2)
                #expect(try log.read(stream: "p-0").map(\.version) == [1, 2])
                // This process's next append follows the other's.
                let next = try await log.append(to: "p-0", expected: .exact(2), events: [makeEvent()])
                #expect(next.positions == [3])
            }
        }
    }
}

@_spi(Operator) import Chronicle
import ChronicleProjections
import ChronicleTestSupport
import Foundation
import Synchronization
import Testing

/// A catch-up far behind folds what it reads ahead, one write transaction at a time. Each
/// transaction must fold on from the checkpoint it finds: another catch-up may have moved it,
/// and a transaction LMDB aborted to grow the map runs again from it. (That second case lost
/// every chunk of the aborted transaction once: the 12 MB of notes below outgrow the states'
/// first map of 16 MiB, and only the last 460 of 3,000 notes were stored.)
@Suite("a declared model's catch-up from far behind", .timeLimit(.minutes(5)))
struct FarCatchUpTests {
    @Test("two catch-ups at once: each transaction folds on from the checkpoint it finds, none twice, and the states equal the fold")
    func twoCatchUpsAtOnceFoldEachEventOnce() async throws {
        let folder = try TemporaryFolder("far-catch-up")
        defer { folder.remove() }
        let store = try ChronicleStore(directory: folder.path + "/store", backgroundProjections: false,
                                       logOptions: .init(noSync: true), model: NotebookModel.model)
        // 3,000 notes of 4 KiB: a transaction stops at 8 MiB of events' data (about 2,000 of
        // them), so a catch-up of them all takes two transactions or more.
        let body = String(repeating: "x", count: 4096)
        for batch in 0..<30 {
            try await store.perform { step in
                for n in 0..<100 {
                    let day = String(format: "2026-03-%02d", (batch * 100 + n) % 28 + 1)
                    _ = try step.create("Note", ["day": .text(day), "body": .text(body + String(n))])
                }
            }
        }
        let head = try store.log.head()
        let states = try ModelStates(path: folder.path + "/states", model: NotebookModel.model, log: store.log, noSync: true)
        // The second catch-up starts once the first has committed its first transaction: both
        // then fold on, and one of them finds the checkpoint the other moved.
        let reached = Mutex<[UInt64]>([])
        let (second, startSecond) = AsyncStream.makeStream(of: Void.self)
        states.onChange { _, _, position in
            let first = reached.withLock { $0.append(position); return $0.count == 1 }
            if first { startSecond.yield(); startSecond.finish() }
        }
        let positions = try await withTimeout(.seconds(120), "two catch-ups") {
            try await withThrowingTaskGroup(of: UInt64.self) { group in
                group.addTask { try await Task.detached { try states.catchUp() }.value }
                group.addTask {
                    for await _ in second { break }
                    return try await Task.detached { try states.catchUp() }.value
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(positions.allSatisfy { $0 == head }, "\(positions), head \(head)")
        let committed = reached.withLock { $0 }
        #expect(committed.count >= 2, "\(committed)")
        // Each transaction folded on from the checkpoint: no position was reached twice.
        #expect(Set(committed).count == committed.count, "positions reached: \(committed)")
        let replayed = try ModelReplay.snapshot(log: store.log, model: store.model).snapshot
        let stored = try states.shown("Note"), folded = replayed.shown("Note")
        #expect(stored == folded, "\(stored.count) stored, \(folded.count) folded; first differing: \(zip(stored, folded).first { $0 != $1 }.map { "\($0.0.id) \($0.0.values.keys.sorted()) \($0.0.isDeleted) / \($0.1.values.keys.sorted())" } ?? "-")")
        #expect(try states.rows(of: "NotesPerDay", from: nil, through: nil) == replayed.rows(of: "NotesPerDay"))
        await store.close()
    }
}

@_spi(Operator) import Chronicle
import ChronicleTestSupport
import Foundation
import Testing

/// Processes that catch one store's stored entities up from far behind at once: each write
/// transaction folds on from the checkpoint it finds, whoever moved it, and a process killed
/// with SIGKILL in the middle of it costs nothing but its uncommitted transaction.
@Suite("a declared model's catch-up from far behind, in processes", .timeLimit(.minutes(5)))
struct FarCatchUpProcessTests {
    @Test("three processes catch up one store, the first killed after its first commit: every note is there once, each day counted once")
    func processesCatchUpAtOnceOneKilled() async throws {
        let seed = TestSeed.seed(for: "FarCatchUpProcessTests")
        print("FarCatchUpProcessTests: \(TestSeed.replay)")
        var random = SeededGenerator(seed: seed)
        let folder = try TemporaryFolder("far-catch-up-processes")
        defer { folder.remove() }
        let path = folder.path + "/store"

        // 4,500 notes of about 4 KiB (19 MB: beyond the states' first map of 16 MiB, and three
        // transactions of 8 MiB of events' data), on random days.
        var written: [UUID: String] = [:]
        var perDay: [String: Int] = [:]
        let store = try ChronicleStore(directory: path, backgroundProjections: false,
                                       logOptions: .init(noSync: true), model: NotebookModel.model)
        for batch in 0..<45 {
            var notes: [(day: String, body: String)] = []
            for n in 0..<100 {
                let day = String(format: "2026-04-%02d", Int.random(in: 1...30, using: &random))
                notes.append((day, String(repeating: "x", count: 4000 + Int.random(in: 0...192, using: &random)) + "\(batch)-\(n)"))
            }
            let ids = try await store.perform { step in
                try notes.map { try step.create("Note", ["day": .text($0.day), "body": .text($0.body)]) }
            }
            for (id, note) in zip(ids, notes) {
                written[id] = note.body
                perDay[note.day, default: 0] += 1
            }
        }
        let head = try store.log.head()
        await store.close()
        // The stored entities start from nothing: as after an upgrade that drops them.
        try? FileManager.default.removeItem(atPath: path + "/entities")

        let torture = try Products.torture()
        var children: [ChildProcess] = []
        for _ in 0..<3 {
            let child = try await ChildProcess(torture, ["catch-up-entities", "--store", path, "--wait-for-go"])
            _ = try await child.firstLine(what: "ready") { $0 == "ready" }
            children.append(child)
        }
        // The first starts alone and is killed once it has committed its first transaction, as
        // the two others start: in the middle of its second, most likely, or between two.
        let victim = children[0]
        try victim.send("go")
        let firstCommit = try await victim.firstLine(what: "the first commit") { $0.hasPrefix("committed ") || $0.hasPrefix("done ") }
        for child in children.dropFirst() { try child.send("go") }
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...100, using: &random)))
        victim.kill()
        var committed: [UInt64] = []
        if let line = firstCommit, line.hasPrefix("committed "), let position = UInt64(line.dropFirst("committed ".count)) {
            committed.append(position)
        }
        let killed = await victim.waitForExit()
        // What it committed before the signal landed (it may have finished first).
        let victimLines = try await withTimeout(.seconds(30), "the killed process's output") {
            var lines: [String] = []
            for await line in victim.lines { lines.append(line) }
            return lines
        }
        committed += victimLines.compactMap { $0.hasPrefix("committed ") ? UInt64($0.dropFirst("committed ".count)) : nil }
        print("FarCatchUpProcessTests: the first process, after '\(firstCommit ?? "-")': \(killed), then \(victimLines)")

        for child in children.dropFirst() {
            let lines = try await withTimeout(.seconds(180), "a catch-up process's output") {
                var lines: [String] = []
                for await line in child.lines { lines.append(line) }
                return lines
            }
            let exit = await child.waitForExit()
            #expect(exit == ChildProcess.Exit(status: 0, wasSignalled: false), "\(exit): \(child.standardErrorText)")
            #expect(lines.last == "done \(head)", "\(lines.suffix(3))")
            committed += lines.compactMap { $0.hasPrefix("committed ") ? UInt64($0.dropFirst("committed ".count)) : nil }
        }
        // Each transaction folded on from the checkpoint it found: no position was reached twice.
        #expect(Set(committed).count == committed.count, "positions committed: \(committed)")
        #expect(committed.max() == head, "positions committed: \(committed), head \(head)")

        // What the states hold, against what this test wrote (no fold of its own).
        let reopened = try ChronicleStore(directory: path, backgroundProjections: false,
                                          logOptions: .init(noSync: true), model: NotebookModel.model)
        let shown = try await reopened.entities("Note")
        #expect(shown.count == written.count)
        let bodies = Dictionary(shown.map { ($0.id, $0.text("body") ?? "") }, uniquingKeysWith: { first, _ in first })
        #expect(bodies == written, "\(bodies.count) notes stored, \(written.count) written")
        let rows = try await reopened.rows("NotesPerDay")
        var counted: [String: Int] = [:]
        for row in rows {
            guard case .text(let day) = row.key, case .integer(let notes)? = row.measures["notes"] else { continue }
            counted[day] = notes
        }
        #expect(counted.count == rows.count)
        #expect(counted == perDay)
        await reopened.close()
    }
}

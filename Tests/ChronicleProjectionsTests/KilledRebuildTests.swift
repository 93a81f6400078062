import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing

@Suite("a rebuild killed halfway", .timeLimit(.minutes(10)))
struct KilledRebuildTests {
    @Test("SIGKILL mid-rebuild leaves the old models readable and the next rebuild completes",
          .timeLimit(.minutes(5)))
    func killedRebuild() async throws {
        try await withStore { store in
            var workload = Workload(test: "KilledRebuildTests.1")
            var reference = ReferenceModels()
            while try store.log.head() < 1_500 {
                let events = workload.next()
                if events.isEmpty { continue }
                try await store.append(events)
                for event in events { reference.apply(event) }
            }
            try await store.runner.catchUp()
            let before = try store.contents()

            // `chronicle rebuild` in another process, stopped for good after 600 events, then killed.
            let child = try await ChildProcess(Chronicle.executable, ["rebuild", "--store", store.directory, "--batch-size", "100"],
                                               environment: ["CHRONICLE_REBUILD_PAUSE_AFTER": "600"])
            let paused = try await child.firstErrorLine(what: "the rebuild's pause") { $0.contains("paused") }
            #expect(paused?.contains("paused after 600 events") == true, "\(child.standardErrorText)")
            child.kill()
            #expect(await child.waitForExit() == .init(status: SIGKILL, wasSignalled: true))

            // The old models are still the active ones; the half-built slot is left behind.
            #expect(try store.contents() == before)
            try expectEqual(store.models, reference)
            let halfway = try store.models.status()
            #expect(halfway.allSatisfy { $0.rebuildCheckpoint == 600 && $0.generation == 1 })

            // The models still take writes (no lock left behind by the killed writer).
            let newcomer = UUID()
            let head = try await store.append([.userCreated(id: newcomer, name: "After the crash", age: 9)])
            reference.apply(.userCreated(id: newcomer, name: "After the crash", age: 9))
            try await store.runner.wait(until: head)
            let live = try store.contents()

            // Whatever the half-built slot holds (here also an entry no replay would write) is dropped.
            try store.models.write { txn in
                let build = try #require(try store.models.databases.build(.users, txn))
                let users = store.models.databases.databases(.users, build.slot)[0]
                try txn.put(users, key: Array(repeating: 0xAB, count: 16), value: [0, 0, 0, 0, 0, 0, 0, 1, 0x41])
            }

            // The next rebuild drops the leftover and completes.
            let rerun = try await Chronicle.run(["rebuild", "--store", store.directory, "--batch-size", "250", "--json"])
            #expect(rerun.status == 0, "\(rerun.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(rerun.stdout.utf8)) as? [String: Any]
            #expect(summary?["events"] as? Int == Int(head), "\(rerun.stdout)")
            #expect(summary?["position"] as? Int == Int(head))
            // stderr is a pipe here, not a terminal: no progress bar in it.
            #expect(rerun.stderr.isEmpty, "no progress off a terminal: \(rerun.stderr.debugDescription)")
            #expect(try store.contents() == live)
            try expectEqual(store.models, reference)
            #expect(try store.models.status().allSatisfy { $0.rebuildCheckpoint == nil && $0.generation == 2 })
        }
    }
}

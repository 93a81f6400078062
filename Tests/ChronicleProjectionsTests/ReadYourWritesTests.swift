import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing

@Suite("read your writes across processes", .timeLimit(.minutes(5)))
struct ReadYourWritesTests {
    @Test("another process appends; this one sees the writes after wait(until:)", .timeLimit(.minutes(5)))
    func otherProcessAppends() async throws {
        try await withStore { store in
            // `chronicle user add` / `todo add` append from a separate process and exit.
            let added = try await Chronicle.run(["user", "add", "--store", store.directory, "--name", "Zed", "--age", "40"])
            #expect(added.status == 0, "\(added.stderr)")
            let id = try #require(UUID(uuidString: added.trimmed))
            let todo = try await Chronicle.run(["todo", "add", "--store", store.directory, "--title", "Visit",
                                                "--deadline", "2026-07-01", "--user", added.trimmed])
            #expect(todo.status == 0, "\(todo.stderr)")
            let position = try store.log.head()
            #expect(position == 2)

            try await store.runner.wait(until: position)
            #expect(try store.models.user(id) == User(id: id, name: "Zed", age: 40))
            #expect(try store.models.todos(user: id).map(\.title) == ["Visit"])
            #expect(try store.models.checkpoint() >= position)
        }
    }

    @Test("with the background runner on, a child's append is visible after the wait", .timeLimit(.minutes(5)))
    func backgroundRunner() async throws {
        try await withStore { store in
            store.runner.start()
            try await store.append([.userCreated(id: UUID(), name: "Local", age: 1)])
            let added = try await Chronicle.run(["user", "add", "--store", store.directory, "--name", "Remote", "--age", "2"])
            #expect(added.status == 0, "\(added.stderr)")
            try await store.runner.wait(until: try store.log.head())
            #expect(try store.models.users().map(\.name) == ["Local", "Remote"])
        }
    }

    @Test("this process appends; a separate process applies it to the models; this one finds it applied", .timeLimit(.minutes(5)))
    func otherProcessReads() async throws {
        try await withStore { store in
            try await store.append([.todoCreated(id: UUID(), title: "Mine", deadline: day("2026-08-08"), userId: nil, memo: nil)])
            let child = try await Chronicle.catchUpModels(in: store.directory)
            #expect(child.status == 0, "\(child.stderr)")
            #expect(child.trimmed == "done 1")
            // The child applied the event; this process finds it applied and does not apply it again.
            #expect(try store.models.checkpoint() == 1)
            try await store.runner.catchUp()
            #expect(try store.models.stats() == [DailyStat(date: day("2026-08-08"), total: 1, completed: 0)])
        }
    }

    @Test("several processes applying the same log at once apply each event exactly once", .timeLimit(.minutes(5)))
    func concurrentAppliers() async throws {
        try await withStore { store in
            var workload = Workload(test: "ReadYourWritesTests.1")
            var reference = ReferenceModels()
            var unknown: UInt64 = 0
            while try store.log.head() < 3_000 {
                if try store.log.head() % 10 == 3 {
                    try await store.appendRaw(type: "FutureEvent", stream: "future", json: "{}")
                    unknown += 1
                }
                let events = workload.next()
                if events.isEmpty { continue }
                try await store.append(events)
                for event in events { reference.apply(event) }
            }
            // Three other processes and this one catch up together, with different batch sizes,
            // so one process's batch often overlaps what another already applied.
            var children: [ChildProcess] = []
            for _ in 0..<3 { children.append(try await ChildProcess(try Products.torture(), ["catch-up-models", "--store", store.directory])) }
            try await ProjectionRunner(log: store.log, models: store.models, batchSize: 97).catchUp()
            for child in children {
                #expect(await child.waitForExit() == .init(status: 0, wasSignalled: false), "\(child.standardErrorText)")
            }
            #expect(try store.models.checkpoint() == (try store.log.head()))
            #expect(try store.models.status().map(\.skippedEvents) == [unknown, unknown, unknown, unknown, unknown])
            try expectEqual(store.models, reference)
            let applied = try store.contents()
            _ = try await Rebuild.run(log: store.log, models: store.models)
            #expect(try store.contents() == applied)
        }
    }

    @Test("a batch overlapping what is already applied applies only the rest (the checkpoint is read in the transaction)")
    func overlappingBatches() async throws {
        try await withStore { store in
            var workload = Workload(test: "ReadYourWritesTests.2")
            var reference = ReferenceModels()
            // Unknown events are counted once each when skipped: the count shows double application.
            var unknown: UInt64 = 0
            while try store.log.head() < 300 {
                if try store.log.head() % 10 == 3 {
                    try await store.appendRaw(type: "FutureEvent", stream: "future", json: "{}")
                    unknown += 1
                }
                let events = workload.next()
                if events.isEmpty { continue }
                try await store.append(events)
                for event in events { reference.apply(event) }
            }
            let head = try store.log.head()
            let worker = store.runner.worker
            try worker.apply(try MergeDecoder(log: store.log).decode(try store.log.read(after: 0, limit: 100)))
            try worker.apply(try MergeDecoder(log: store.log).decode(try store.log.read(after: 50, limit: 100)))    // 51...150: 51...100 already applied
            try worker.apply(try MergeDecoder(log: store.log).decode(try store.log.read(after: 0, limit: 120)))     // all applied already
            try worker.apply(try MergeDecoder(log: store.log).decode(try store.log.read(after: 149, limit: 1_000))) // 150 again, then the rest
            #expect(try store.models.checkpoint() == head)
            #expect(try store.models.status().map(\.skippedEvents) == [unknown, unknown, unknown, unknown, unknown])
            try expectEqual(store.models, reference)
            let applied = try store.contents()
            _ = try await Rebuild.run(log: store.log, models: store.models)
            #expect(try store.contents() == applied)
        }
    }
}

import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing

@Suite("incremental models, rebuilds and an independent fold agree", .timeLimit(.minutes(10)))
struct IncrementalRebuildTests {
    @Test("10,000 random valid and invalid commands: incremental == rebuild (byte for byte) == independent fold")
    func randomCommands() async throws {
        try await withStore { store in
            var workload = Workload(test: "IncrementalRebuildTests.0")
            var reference = ReferenceModels()
            var batches = TestSeed.generator(for: "IncrementalRebuildTests.batches")
            var nextCatchUp = 1
            for command in 1...10_000 {
                let events = workload.next()
                if !events.isEmpty {
                    try await store.append(events)
                    for event in events { reference.apply(event) }
                }
                // Apply at irregular points, so batches begin and end everywhere.
                if command == nextCatchUp {
                    try await store.runner.catchUp()
                    nextCatchUp += Int.random(in: 1...60, using: &batches)
                }
            }
            try await store.runner.catchUp()
            #expect(workload.rejected > 1_000, "the workload must exercise rejected commands")
            // About half the commands are accepted (4,946 of 10,000 for CHRONICLE_SEED=0x901d664cfde5f89).
            #expect(workload.accepted > 4_000, "accepted \(workload.accepted), rejected \(workload.rejected)")
            let head = try store.log.head()
            #expect(try store.models.checkpoint() == head)

            // The models equal the independent fold, through every index.
            try expectEqual(store.models, reference)

            // A rebuild from the log reproduces every key and value.
            let incremental = try store.contents()
            // Every model has entries (no merge happens on one device: its conflicts stay empty).
            #expect(incremental.filter { !$0.key.hasPrefix("conflicts") }.values.allSatisfy { !$0.isEmpty })
            let summary = try await Rebuild.run(log: store.log, models: store.models)
            #expect(summary.position == head)
            #expect(summary.eventsRead == head)
            let rebuilt = try store.contents()
            #expect(rebuilt.keys.sorted() == incremental.keys.sorted())
            for (name, entries) in incremental {
                #expect(rebuilt[name] == entries, "database \(name) differs after the rebuild")
            }
            #expect(try store.models.status().allSatisfy { $0.generation == 2 && $0.rebuildCheckpoint == nil })
            try expectEqual(store.models, reference)
            #expect(try ModelVerifier.problems(log: store.log, models: store.models, deep: true).isEmpty)
        }
    }

    @Test("transactions of several read-ahead chunks, begun again as the map grows, rebuild the same bytes")
    func chunkedTransactionsAndMapGrowth() async throws {
        try await withStore { store in
            var workload = Workload(test: "IncrementalRebuildTests.1")
            // Under the 10,000 events for which a rebuild makes room up front.
            try await store.append(from: &workload, untilHead: 9_000)
            try await store.runner.catchUp()
            let incremental = try store.contents()
            let head = try store.log.head()

            // 64 KiB holds a fraction of the first transaction (four chunks and a bit), which
            // has nothing before it to foresee its size by: it fills the map, which grows, and
            // it runs again, reading its chunks again from the start.
            let small = try ReadModels(path: store.directory + "/models-small",
                                       options: .init(noSync: true, initialMapSize: 64 << 10))
            let summary = try await Rebuild.run(log: store.log, models: small, projections: ProjectionName.allCases,
                                                bound: .events(4 * 500 + 123), mode: .fresh, readAhead: 500) { _ in }
            #expect(small.environment.currentMapSize() >= 2 << 20)
            #expect(summary.transactionsRunAgain >= 1)
            #expect(summary.position == head)
            #expect(summary.eventsRead == head)
            let rebuilt = try small.contents()
            #expect(rebuilt.keys.sorted() == incremental.keys.sorted())
            for (name, entries) in incremental {
                #expect(rebuilt[name] == entries, "database \(name) differs after the rebuild")
            }
        }
    }

    @Test("a rebuild grows the map between its transactions, as the ones before foretell, instead of halfway through one")
    func mapGrowsBetweenTransactions() async throws {
        try await withStore { store in
            var workload = Workload(test: "IncrementalRebuildTests.2")
            // Under the 10,000 events for which a rebuild makes room up front.
            try await store.append(from: &workload, untilHead: 9_000)
            try await store.runner.catchUp()
            let incremental = try store.contents()
            // 1 MiB (a new store's map) holds the first batches, not all nine.
            let models = try ReadModels(path: store.directory + "/models-growing", options: .init(noSync: true, initialMapSize: 1 << 20))
            let summary = try await Rebuild.run(log: store.log, models: models, batchSize: 1_000)
            #expect(models.environment.currentMapSize() == 64 << 20, "grown once, as a full map would have been")
            #expect(summary.transactionsRunAgain == 0, "no transaction filled the map and ran again")
            let rebuilt = try models.contents()
            #expect(rebuilt == incremental)
        }
    }

    @Test("a rebuild and a catch-up with the largest batch size build the same bytes (the overlay's room is bounded)")
    func largestBatchSize() async throws {
        try await withStore { store in
            var workload = Workload(test: "IncrementalRebuildTests.3")
            try await store.append(from: &workload, untilHead: 3_000)
            let head = try store.log.head()   // whole commands: 3,000 or a few events past it
            try await store.runner.catchUp()
            let incremental = try store.contents()
            let summary = try await Rebuild.run(log: store.log, models: store.models, batchSize: .max)
            #expect(summary.position == head)
            #expect(try store.contents() == incremental)
            let models = try ReadModels(path: store.directory + "/models-one-batch", options: .init(noSync: true))
            let runner = ProjectionRunner(log: store.log, models: models, batchSize: .max)
            #expect(try await runner.catchUp() == head)
            #expect(try models.contents() == incremental)
        }
    }

    @Test("a backlog caught up in transactions of several chunks gives the same bytes as batch by batch")
    func backlogCaughtUpInChunks() async throws {
        try await withStore { store in
            var workload = Workload(test: "IncrementalRebuildTests.4")
            // Models of their own that apply a first, small backlog batch by batch.
            let chunked = try ReadModels(path: store.directory + "/models-chunked", options: .init(noSync: true, initialMapSize: 64 << 10))
            let runner = ProjectionRunner(log: store.log, models: chunked, batchSize: 1_000, largeTransactions: .events(4_000))
            try await store.append(from: &workload, untilHead: 600)
            #expect(try await runner.catchUp() == store.log.head())
            // Then a backlog of many batches: transactions of 4,000 events in chunks of 1,000.
            try await store.append(from: &workload, untilHead: 12_000)
            let head = try store.log.head()
            #expect(try await runner.catchUp() == head)
            // The store's own models, caught up batch by batch (its batches are larger than the backlog).
            #expect(try await store.runner.catchUp() == head)
            let reference = try store.contents()
            var caughtUp: [String: [[UInt8]]] = [:]
            for name in ProjectionName.allCases { caughtUp.merge(try chunked.contents(of: name)) { a, _ in a } }
            #expect(caughtUp.keys.sorted() == reference.keys.sorted())
            for (name, entries) in reference {
                #expect(caughtUp[name] == entries, "database \(name) differs after the chunked catch-up")
            }
            #expect(try chunked.status().allSatisfy { $0.checkpoint == head })
            #expect(try ModelVerifier.problems(log: store.log, models: chunked, deep: true).isEmpty)
        }
    }

    @Test("a rebuild swaps in only at the end and brings itself level with events applied meanwhile")
    func blueGreenSwap() async throws {
        try await withStore { store in
            var workload = Workload(test: "IncrementalRebuildTests.5")
            var reference = ReferenceModels()
            func run(_ commands: Int) async throws {
                for _ in 0..<commands {
                    let events = workload.next()
                    if events.isEmpty { continue }
                    try await store.append(events)
                    for event in events { reference.apply(event) }
                }
                try await store.runner.catchUp()
            }
            try await run(400)
            let before = try store.contents()

            // Start a rebuild and apply part of the log to the new slot.
            let plan = try Rebuild.begin(store.models, ProjectionName.allCases, .fresh)
            let firstPart = try store.applyBuild(plan, limit: 100)
            #expect(firstPart.finished.isEmpty && firstPart.last == 100)
            #expect(try store.contents() == before, "readers keep the old models during the rebuild")
            #expect(try store.models.status().allSatisfy { $0.rebuildCheckpoint == 100 })

            // The live models move on meanwhile.
            try await run(200)
            let live = try store.contents()
            let head = try store.log.head()
            #expect(try store.models.checkpoint() == head)

            // The swap applies what the rebuild had not seen yet, in the same transaction.
            _ = try Rebuild.swap(store.log, store.models, plan, batchSize: 64)
            #expect(try store.contents() == live)
            #expect(try store.models.status().allSatisfy { $0.generation == 2 && $0.checkpoint == head && $0.rebuildCheckpoint == nil })
            try expectEqual(store.models, reference)
        }
    }

    @Test("a rebuild started later replaces a running one, which stops")
    func supersededRebuild() async throws {
        try await withStore { store in
            var workload = Workload(test: "IncrementalRebuildTests.6")
            for _ in 0..<200 {
                let events = workload.next()
                if !events.isEmpty { try await store.append(events) }
            }
            try await store.runner.catchUp()
            let live = try store.contents()
            let first = try Rebuild.begin(store.models, [.todos], .fresh)
            #expect(try store.applyBuild(first, limit: 10_000).finished.isEmpty)
            let second = try Rebuild.begin(store.models, [.todos], .fresh)
            #expect(throws: ProjectionError.superseded(.todos)) { try store.applyBuild(first, limit: 10_000) }
            #expect(throws: ProjectionError.superseded(.todos)) { try Rebuild.swap(store.log, store.models, first, batchSize: 100) }
            #expect(try store.applyBuild(second, limit: 10_000).finished.isEmpty)
            _ = try Rebuild.swap(store.log, store.models, second, batchSize: 100)
            #expect(try store.contents() == live)
            // Daily stats are counted by the todos projection: rebuilt with it.
            #expect(try store.models.status().map(\.generation) == [1, 2, 2, 1, 1])
        }
    }

    @Test("events of unknown types and undecodable events are skipped and counted, not fatal")
    func unknownEvents() async throws {
        try await withStore { store in
            let id = UUID()
            try await store.append([.todoCreated(id: id, title: "Known", deadline: day("2026-05-01"), userId: nil, memo: nil)])
            try await store.appendRaw(type: "TodoArchived", stream: DomainEvent.todoStream(id), json: "{}")
            try await store.appendRaw(type: "TodoUpdated", stream: DomainEvent.todoStream(id), json: #"{"deadline":"2026-02-30"}"#)
            try await store.append([.todoCompleted(id: id)])
            #expect(try await store.runner.catchUp() == 4)
            #expect(try store.models.todo(id)?.isCompleted == true)
            #expect(try store.models.stats() == [DailyStat(date: day("2026-05-01"), total: 1, completed: 1)])
            #expect(try store.models.status().map(\.skippedEvents) == [2, 2, 2, 2, 2])
            let incremental = try store.contents()
            let summary = try await Rebuild.run(log: store.log, models: store.models, batchSize: 2)
            #expect(summary.skippedEvents == 2)
            #expect(try store.contents() == incremental)
        }
    }

    @Test("a model built by an older projection version is rebuilt on open, old model readable until the swap")
    func versionUpgrade() async throws {
        let directory: String
        let before: [String: [[UInt8]]]
        let users: [User]
        do {
            let old = try TestStore()
            directory = old.directory
            var workload = Workload(test: "IncrementalRebuildTests.7")
            for _ in 0..<300 {
                let events = workload.next()
                if !events.isEmpty { try await old.append(events) }
            }
            try await old.runner.catchUp()
            before = try old.contents()
            users = try old.models.users()
            await old.runner.stop()
            old.log.close()
        }
        let store = try TestStore(directory: directory, versions: [.users: UsersProjection.version + 1])
        do {
            #expect(try store.models.status().map(\.needsRebuild) == [true, false, false, false, false])
            #expect(try store.models.users() == users, "the old model stays readable")
            let changes = store.runner.changes()
            let head = try await store.append([.userCreated(id: UUID(), name: "Newcomer", age: 1)])
            store.runner.start()
            try await store.runner.wait(until: head)
            let status = try store.models.status()
            #expect(status.map(\.builtByVersion) == [UsersProjection.version + 1, TodosProjection.version,
                                                      TodosProjection.version, TagsProjection.version,
                                                      ConflictsProjection.version])
            #expect(status.map(\.generation) == [2, 1, 1, 1, 1])
            #expect(try store.models.users().count == users.count + 1)
            var sawRebuild = false
            for await change in changes {
                if case .invalidated(.users, _) = change { sawRebuild = true; break }
            }
            #expect(sawRebuild)
            // Apart from the newcomer, the upgraded model holds the same bytes.
            await store.runner.stop()
            #expect(try store.contents()["todos"] == before["todos"])
        } catch {
            await store.cleanup()
            throw error
        }
        await store.cleanup()
    }
}

/// Checks every query of the models against the independent fold.
func expectEqual(_ models: ReadModels, _ reference: ReferenceModels, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(try models.users() == reference.sortedUsers, sourceLocation: sourceLocation)
    #expect(try models.todos() == reference.sortedTodos, sourceLocation: sourceLocation)
    #expect(try models.stats() == reference.stats, sourceLocation: sourceLocation)
    for user in reference.users.values {
        #expect(try models.user(user.id) == user, sourceLocation: sourceLocation)
    }
    let owners = Set(reference.todos.values.compactMap(\.userId))
    for owner in owners {
        #expect(try models.todos(user: owner) == reference.todos(user: owner), sourceLocation: sourceLocation)
    }
    for stat in reference.stats {
        #expect(try models.todos(on: stat.date) == reference.todos(on: stat.date), sourceLocation: sourceLocation)
        #expect(try models.stats(from: stat.date, to: stat.date) == [stat], sourceLocation: sourceLocation)
    }
    if let owner = owners.first, let first = reference.stats.first {
        #expect(try models.todos(on: first.date, user: owner) == reference.todos(on: first.date, user: owner),
                sourceLocation: sourceLocation)
    }
    for todo in reference.todos.values.prefix(200) {
        #expect(try models.todo(todo.id) == todo, sourceLocation: sourceLocation)
    }
    #expect(try models.tags() == reference.sortedTags, sourceLocation: sourceLocation)
    for tag in reference.tags.values {
        #expect(try models.tag(tag.id) == tag, sourceLocation: sourceLocation)
        #expect(try models.todos(tag: tag.id) == reference.todos(tag: tag.id), sourceLocation: sourceLocation)
    }
}

private extension TestStore {
    /// One write transaction of a build: up to `limit` events from the start of the log.
    func applyBuild(_ plan: [ProjectionName: BuildState], limit: Int) throws -> Rebuild.Step {
        let source = LogReadAhead(log: log, chunkSize: 50, after: 0)
        defer { source.stop() }
        return try Rebuild.applyBuild(models, plan, after: 0, source: source, bound: .events(limit), forecast: MapGrowthForecast())
    }
}

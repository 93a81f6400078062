@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing

@Suite("read your writes across processes", .timeLimit(.minutes(5)))
struct ReadYourWritesTests {
    @Test("another process appends; this one sees the writes after waitForModels(through:)", .timeLimit(.minutes(5)))
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

            try await store.chronicle.waitForModels(through: position)
            #expect(try store.chronicle.entityStates.position() >= position)
            #expect(try await store.chronicle.user(id) == User(id: id, name: "Zed", age: 40))
            #expect(try await store.chronicle.todos(user: id).map(\.title) == ["Visit"])
        }
    }

    @Test("with the background follower on, a child's append is visible after the wait", .timeLimit(.minutes(5)))
    func backgroundFollower() async throws {
        let folder = try TemporaryFolder("read-your-writes")
        defer { folder.remove() }
        let store = try ChronicleStore(directory: folder.path, logOptions: .init(noSync: true))
        _ = try await store.createUser(name: "Local", age: 1)
        let added = try await Chronicle.run(["user", "add", "--store", folder.path, "--name", "Remote", "--age", "2"])
        #expect(added.status == 0, "\(added.stderr)")
        try await store.waitForModels(through: try store.head())
        #expect(try await store.users().map(\.name) == ["Local", "Remote"])
        await store.close()
    }

    @Test("this process appends; a separate process folds it; this one finds it folded", .timeLimit(.minutes(5)))
    func otherProcessFolds() async throws {
        try await withStore { store in
            try await store.append([.todoCreated(id: UUID(), title: "Mine", deadline: day("2026-08-08"), userId: nil, memo: nil)])
            let child = try await Chronicle.catchUpEntities(in: store.directory)
            #expect(child.status == 0, "\(child.stderr)")
            #expect(child.trimmed.hasSuffix("done 1"), "\(child.stdout)")
            // The child folded the event; this process finds it folded and does not fold it again.
            #expect(try store.chronicle.entityStates.position() == 1)
            #expect(try await store.chronicle.stats() == [DailyStat(date: day("2026-08-08"), total: 1, completed: 0)])
        }
    }

    @Test("several processes folding the same log at once fold each event exactly once", .timeLimit(.minutes(5)))
    func concurrentFolders() async throws {
        try await withStore { store in
            var workload = Workload(test: "ReadYourWritesTests.1")
            var reference = ReferenceModels()
            var unknown = 0
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
            // Three other processes and this one catch up together, so that one process's
            // transaction often begins where another already folded.
            var children: [ChildProcess] = []
            for _ in 0..<3 { children.append(try await ChildProcess(try Products.torture(), ["catch-up-entities", "--store", store.directory])) }
            try await store.chronicle.refresh()
            for child in children {
                #expect(await child.waitForExit() == .init(status: 0, wasSignalled: false), "\(child.standardErrorText)")
            }
            let states = store.chronicle.entityStates
            #expect(try states.position() == (try store.log.head()))
            // Unknown events are counted once each when skipped: the count shows a double fold.
            #expect(try states.unread().count == unknown)
            #expect(try await store.chronicle.users() == reference.sortedUsers)
            #expect(try await store.chronicle.todos() == reference.sortedTodos)
            #expect(try await store.chronicle.stats() == reference.stats)
            let folded = try states.contents()
            _ = try await store.chronicle.rebuild()
            #expect(try states.contents() == folded)
        }
    }
}

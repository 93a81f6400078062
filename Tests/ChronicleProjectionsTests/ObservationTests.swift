import ChronicleTodoDomain
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing

@Suite("observing read-model changes", .timeLimit(.minutes(5)))
struct ObservationTests {
    @Test("changes() delivers each change after an append", .timeLimit(.minutes(5)))
    func deliversChanges() async throws {
        try await withStore { store in
            var changes = store.runner.changes().makeAsyncIterator()
            /// The changes up to and including the first one `last` accepts.
            func receive(until last: (ReadModelChange) -> Bool) async -> [ReadModelChange] {
                var received: [ReadModelChange] = []
                while let change = await changes.next() {
                    received.append(change)
                    if last(change) { break }
                }
                return received
            }
            store.runner.start()
            let ada = UUID(), id = UUID()
            let deadline = day("2026-09-09")
            try await store.append([.userCreated(id: ada, name: "Ada", age: 36)])
            #expect(await receive { _ in true } == [.user(User(id: ada, name: "Ada", age: 36), position: 1)])

            try await store.append([.todoCreated(id: id, title: "Watch", deadline: deadline, userId: ada, memo: nil)])
            let todo = Todo(id: id, title: "Watch", deadline: deadline, userId: ada)
            #expect(await receive { if case .stat = $0 { true } else { false } }
                    == [.todo(todo, position: 2), .stat(DailyStat(date: deadline, total: 1, completed: 0), position: 2)])

            try await store.append([.todoCompleted(id: id)])
            var completed = todo
            completed.isCompleted = true
            #expect(await receive { if case .stat = $0 { true } else { false } }
                    == [.todo(completed, position: 3), .stat(DailyStat(date: deadline, total: 1, completed: 1), position: 3)])

            try await store.append([.todoDeleted(id: id)])
            #expect(await receive { if case .statRemoved = $0 { true } else { false } }
                    == [.todoRemoved(id, position: 4), .statRemoved(deadline, position: 4)])
        }
    }

    @Test("changes applied by another process arrive as invalidations", .timeLimit(.minutes(5)))
    func invalidation() async throws {
        try await withStore { store in
            try await store.append([.userCreated(id: UUID(), name: "First", age: 1)])
            try await store.runner.catchUp()
            let changes = store.runner.changes()
            try await store.append([.userCreated(id: UUID(), name: "Second", age: 2)])
            // Another process applies position 2 before this runner does.
            let child = try await Chronicle.catchUpModels(in: store.directory)
            #expect(child.status == 0, "\(child.stderr)")
            try await store.append([.userCreated(id: UUID(), name: "Third", age: 3)])
            try await store.runner.catchUp()
            var received: [ReadModelChange] = []
            for await change in changes {
                received.append(change)
                if case .user(let user, _) = change, user.name == "Third" { break }
            }
            #expect(received.contains(.invalidated(.users, position: 2)))
            #expect(!received.contains { if case .user(let user, _) = $0 { user.name == "Second" } else { false } })
        }
    }

    @Test("stop() ends the change streams")
    func stopEnds() async throws {
        try await withStore { store in
            let changes = store.runner.changes()
            store.runner.start()
            await store.runner.stop()
            var count = 0
            for await _ in changes { count += 1 }
            #expect(count == 0)
        }
    }
}

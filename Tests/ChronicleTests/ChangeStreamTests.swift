@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// `ChronicleStore.changes()`: what a view model subscribes to, told by the stored entities'
/// follower of every entity a catch-up in this process changed, and of a re-query when
/// another process folded first.
@Suite("the store's change stream", .timeLimit(.minutes(5)))
struct ChangeStreamTests {
    /// The changes up to and including the first one `last` accepts.
    static func receive(_ changes: inout AsyncStream<ReadModelChange>.Iterator,
                        until last: (ReadModelChange) -> Bool) async throws -> [ReadModelChange] {
        var received: [ReadModelChange] = []
        while let change = await changes.next() {
            received.append(change)
            if last(change) { return received }
        }
        Issue.record("the stream ended after \(received)")
        return received
    }

    @Test("each command's entity arrives with the position that changed it")
    func deliversEachEntity() async throws {
        let folder = try TemporaryFolder("change-stream")
        defer { folder.remove() }
        let store = try ChronicleStore(directory: folder.path + "/store", logOptions: .init(noSync: true))
        var changes = store.changes().makeAsyncIterator()
        func next(_ entity: String, _ id: UUID) async throws -> [ReadModelChange] {
            try await Self.receive(&changes) { if case .entity(entity, id, _) = $0 { true } else { false } }
        }

        let ada = try await store.createUser(name: "Ada", age: 36)
        #expect(try await next("User", ada.id) == [.entity("User", ada.id, position: 1)])
        let todo = try await store.createTodo(title: "Watch", deadline: "2026-09-09", userId: ada.id)
        #expect(try await next("Todo", todo.id).last == .entity("Todo", todo.id, position: 2))
        _ = try await store.completeTodo(todo.id)
        #expect(try await next("Todo", todo.id).last == .entity("Todo", todo.id, position: 3))
        let work = try await store.createTag(name: "Work", color: "#112233")
        #expect(try await next("Tag", work.id).last == .entity("Tag", work.id, position: 4))
        try await store.deleteTodo(todo.id)
        #expect(try await next("Todo", todo.id).last == .entity("Todo", todo.id, position: 5))
        await store.close()
    }

    @Test("what another process folded first arrives as one re-query, not as entities")
    func anotherProcessFoldsFirst() async throws {
        let folder = try TemporaryFolder("change-stream-other")
        defer { folder.remove() }
        let path = folder.path + "/store"
        // No follower of its own: this store folds when it reads.
        let store = try ChronicleStore(directory: path, backgroundProjections: false, logOptions: .init(noSync: true))
        _ = try await store.createUser(name: "First", age: 1)
        try await store.refresh()
        var changes = store.changes().makeAsyncIterator()
        let second = try await store.createUser(name: "Second", age: 2)
        // Another process folds position 2 before this one does.
        let child = try await runCommand(try Products.torture(), ["catch-up-entities", "--store", path], timeout: .seconds(60))
        #expect(child.exit.status == 0 && child.standardOutput.last == "done 2", "\(child.standardOutput) \(child.standardError)")
        let third = try await store.createUser(name: "Third", age: 3)
        try await store.refresh()
        let received = try await Self.receive(&changes) { if case .entity("User", third.id, _) = $0 { true } else { false } }
        #expect(received == [.entitiesInvalidated(position: 2), .entity("User", third.id, position: 3)])
        #expect(!received.contains { if case .entity(_, second.id, _) = $0 { true } else { false } }, "\(received)")
        await store.close()
    }

    @Test("closing the store ends its change streams")
    func closeEnds() async throws {
        let folder = try TemporaryFolder("change-stream-close")
        defer { folder.remove() }
        let store = try ChronicleStore(directory: folder.path + "/store", logOptions: .init(noSync: true))
        let changes = store.changes()
        await store.close()
        var count = 0
        for await _ in changes { count += 1 }
        #expect(count == 0)
    }
}

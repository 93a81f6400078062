@_spi(Operator) import Chronicle
import ChronicleTodoDomain
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing

@Suite("replay builds past models in memory", .timeLimit(.minutes(10)))
struct ReplayTests {
    private struct Captured {
        var position: UInt64
        var users: [User]
        var todos: [Todo]
        var stats: [DailyStat]
    }

    @Test("replay at several positions equals the states captured at those positions during the run")
    func replayEqualsCapturedStates() async throws {
        try await withStore { store in
            var workload = Workload(test: "ReplayTests.1")
            var reference = ReferenceModels()
            var captured: [Captured] = [Captured(position: 0, users: [], todos: [], stats: [])]
            for command in 1...2_000 {
                let events = workload.next()
                if !events.isEmpty {
                    try await store.append(events)
                    for event in events { reference.apply(event) }
                }
                if command % 250 == 0 || command == 7 {
                    let position = try await store.chronicle.refresh()
                    #expect(position == (try store.log.head()))
                    let state = Captured(position: position, users: try await store.chronicle.users(),
                                         todos: try await store.chronicle.todos(), stats: try await store.chronicle.stats())
                    #expect(state.users == reference.sortedUsers && state.todos == reference.sortedTodos
                            && state.stats == reference.stats, "captured at \(position)")
                    captured.append(state)
                }
            }
            let stored = try store.chronicle.entityStates.contents()
            let folded = try store.chronicle.entityStates.position()
            for state in captured {
                let snapshot = try Replay.snapshot(log: store.log, until: state.position)
                #expect(snapshot.users == state.users, "users at \(state.position)")
                #expect(snapshot.todos == state.todos, "todos at \(state.position)")
                #expect(snapshot.stats == state.stats, "stats at \(state.position)")
            }
            #expect(try store.chronicle.entityStates.contents() == stored, "replay leaves the stored entities untouched")
            #expect(try store.chronicle.entityStates.position() == folded)
        }
    }

    @Test("replay past the head is refused; replay to 0 is empty; unknown events are counted")
    func bounds() async throws {
        try await withStore { store in
            try await store.append([.userCreated(id: UUID(), name: "Ada", age: 36)])
            try await store.appendRaw(type: "Mystery", stream: "misc", json: "{}")
            #expect(throws: ProjectionError.beyondHead(position: 3, head: 2)) {
                try Replay.snapshot(log: store.log, until: 3)
            }
            let empty = try Replay.snapshot(log: store.log, until: 0)
            #expect(empty.users.isEmpty && empty.todos.isEmpty && empty.tags.isEmpty && empty.stats.isEmpty)
            let result = try Replay.result(log: store.log, until: 2)
            #expect(result.events == 2 && result.skippedEvents == 1 && result.snapshot.users.count == 1)
        }
    }
}

import Chronicle
import Foundation
import Testing

/// `write` hands back whatever its body returns, whatever the value's size: Swift 6.3
/// miscompiled a `nonisolated(nonsending)` caller whose async closure set a captured generic
/// value, and some sizes crashed in `swift_task_dealloc` (the task's stack freed out of order).
@Suite("A write step's value comes back whatever its size", .timeLimit(.minutes(5)))
struct WriteValueSizeTests {
    @Test("values of 1 to 512 bytes, and a todo, come back from a step that appends and from one that appends nothing")
    func valuesOfEverySize() async throws {
        try await AppFacadeTests.withStore { store in
            try await Self.roundTrip(InlineArray<1, UInt8>(repeating: 1), in: store)
            try await Self.roundTrip(InlineArray<24, UInt8>(repeating: 2), in: store)
            try await Self.roundTrip(InlineArray<88, UInt8>(repeating: 3), in: store)
            try await Self.roundTrip(InlineArray<112, UInt8>(repeating: 4), in: store)
            try await Self.roundTrip(InlineArray<200, UInt8>(repeating: 5), in: store)
            try await Self.roundTrip(InlineArray<288, UInt8>(repeating: 6), in: store)
            try await Self.roundTrip(InlineArray<512, UInt8>(repeating: 7), in: store)
            let written = try await store.write { step in
                try await step.createTodo(title: "Sized", deadline: "2026-12-01")
            }
            #expect(written.value.title == "Sized")
            #expect(written.value.deadline.description == "2026-12-01")
        }
    }

    /// Writes once creating a user and once appending nothing, each step returning `value`.
    static func roundTrip<let count: Int>(_ value: InlineArray<count, UInt8>, in store: ChronicleStore) async throws {
        let appending = try await store.write { step in
            _ = try await step.createUser(name: "User \(count)", age: 30)
            return value
        }
        #expect(appending.value.indices.allSatisfy { appending.value[$0] == value[$0] })
        let nothing = try await store.write { _ in value }
        #expect(nothing.value.indices.allSatisfy { nothing.value[$0] == value[$0] })
        #expect(nothing.position == appending.position)
    }
}

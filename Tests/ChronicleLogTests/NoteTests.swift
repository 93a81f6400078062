import ChronicleTestSupport
import ChronicleLog
import Foundation
import Testing

/// Notes (``EventLog/append(_:keys:note:)``): bytes an appender stores with its batch, in the
/// batch's transaction.
@Suite(.timeLimit(.minutes(5)))
struct NoteTests {
    @Test func aNoteIsStoredWithItsBatchAndNamesTheBatchsPositions() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append(to: "a", events: [makeEvent()])                          // no note
                try await log.append([StreamAppend(stream: "b", events: [makeEvent(), makeEvent()]),
                                      StreamAppend(stream: "c", events: [makeEvent()])], note: [1, 2, 3])
                try await log.append([StreamAppend(stream: "d", events: [makeEvent()])], note: [9])
                #expect(try log.notes() == [AppendNote(positions: 2...4, bytes: [1, 2, 3]), AppendNote(positions: 5...5, bytes: [9])])
                #expect(try log.notes(after: 2) == [AppendNote(positions: 5...5, bytes: [9])])
                #expect(try log.notes(after: 5) == [])
            }
        }
    }

    @Test func aRefusedBatchARetryAndAnIngestStoreNoNote() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let event = makeEvent()
                try await log.append([StreamAppend(stream: "a", expected: .noStream, events: [event])], note: [1])
                await #expect(throws: EventLogError.self) {
                    try await log.append([StreamAppend(stream: "a", expected: .noStream, events: [makeEvent()])], note: [2])
                }
                let retry = try await log.append([StreamAppend(stream: "a", events: [event])], note: [3])
                #expect(retry.appended == 0)
                _ = try await log.ingest([ForeignEvent(id: UUID(), stream: "z", version: 1, type: "T", timestampMilliseconds: 0,
                                                   origin: "elsewhere", data: Data("{}".utf8))])
                #expect(try log.notes() == [AppendNote(positions: 1...1, bytes: [1])])
            }
        }
    }

    @Test func notesSurviveReopeningAndAreSeenByAnotherLogOnTheSameFolder() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                try await log.append([StreamAppend(stream: "a", events: [makeEvent()])], note: [7])
            }
            try await store.withLog { log throws in
                #expect(try log.notes() == [AppendNote(positions: 1...1, bytes: [7])])
            }
        }
    }
}

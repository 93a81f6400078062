import ChronicleTodoDomain
import ChronicleLog
import Foundation
@testable import ChronicleProjections
import Testing
import UUIDText

@Suite("events read in place for the merge keep the stored event only where it may be needed", .timeLimit(.minutes(5)))
struct ReadRecordTests {
    @Test("an event that decodes keeps only its domain event, pulled or not; one that does not decode keeps the stored event")
    func keptWhereNeeded() async throws {
        try await withStore { store in
            let own = UUID(), pulled = UUID()
            try await store.append([.todoCreated(id: own, title: "Own", deadline: day("2026-03-01"), userId: nil, memo: nil)])
            try await store.appendRaw(type: "TodoCreated", stream: DomainEvent.todoStream(UUID()), json: #"{"title":1}"#)
            let foreign = DomainEvent.todoCreated(id: pulled, title: "Pulled", deadline: day("2026-03-02"), userId: nil, memo: "m")
            _ = try await store.log.ingest([ForeignEvent(id: UUID(), stream: foreign.stream, version: 1, type: foreign.type,
                                                         timestampMilliseconds: 1_700_000_000_000, origin: "another-device",
                                                         data: foreign.encodedData(), upstreamPosition: 7)])
            let records = try ReadRecord.records(try store.log.readStored(after: 0, limit: 10), of: store.log)
            let copied = try store.log.read(after: 0, limit: 10)
            #expect(records.map(\.position) == [1, 2, 3])
            #expect(records.map(\.isOwn) == [true, true, false])
            #expect(records.map { $0.recorded == nil } == [true, false, true])
            #expect(records[1].event == nil && records[1].recorded == copied[1])
            #expect(records[2].event == foreign)
            #expect(try records[2].recorded(from: store.log) == copied[2], "read again when needed")
            #expect(records.map(\.stream) == copied.map(\.stream), "a decoded event names its record's stream")
            #expect(records.map(\.dataBytes) == copied.map(\.data.count))
            // Read in place or from the copies, the merge decodes the same events.
            let inPlace = try MergeDecoder(log: store.log).decode(records)
            let fromCopies = try MergeDecoder(log: store.log).decode(copied)
            #expect(inPlace.items.map(\.event) == fromCopies.items.map(\.event))
            #expect(inPlace.items.map(\.rank) == fromCopies.items.map(\.rank))
        }
    }
}

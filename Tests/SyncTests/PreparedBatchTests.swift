import ChronicleTestSupport
@testable import ChronicleSync
import ChronicleLog
import Foundation
import Testing

@Suite("A push batch reads a bounded part of the log", .timeLimit(.minutes(5)))
struct PreparedBatchTests {
    @Test("the log is read up to the batch's byte limit, pulled events included: a batch never loads more than it may send")
    func readsNoMoreThanTheBytes() async throws {
        try await TestStore.with { store in
            try await store.withLog { log throws in
                let big = #"{"k":""# + String(repeating: "x", count: 48 << 10) + #""}"#
                try await log.append(to: "s-1", events: [makeEvent("Own", big)])
                _ = try await log.ingest([ForeignEvent(id: UUID(), stream: "s-2", version: 1, type: "Pulled", timestampMilliseconds: 0,
                                                       origin: "another-device", data: Data(big.utf8))])
                try await log.append(to: "s-1", events: [makeEvent("Own", big), makeEvent("Own", big)])
                // 100 KiB holds two events' data: the first batch reads the own event and the pulled one.
                let batch = try PreparedBatch.read(from: log, after: 0, limit: 100, maxBytes: 100 << 10)
                #expect(batch.events.map(\.position) == [1])
                #expect(batch.through == 2)
                let next = try PreparedBatch.read(from: log, after: batch.through, limit: 100, maxBytes: 100 << 10)
                #expect(next.events.map(\.position) == [3, 4])
                #expect(next.through == 4)
            }
        }
    }
}

@_spi(Operator) import Chronicle
import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
@testable import ChronicleProjections

/// A todo app's store in a fresh ``TemporaryFolder``, removed by `cleanup()`, with raw
/// appends of the todo app's events to its log (its entities fold them when read, or at
/// `refresh()`). Durability is off: tests do not crash the machine.
final class TestStore: Sendable {
    let directory: String
    let chronicle: ChronicleStore
    var log: EventLog { chronicle.log }

    init(directory: String? = nil) throws {
        self.directory = try directory ?? TemporaryFolder("projections").path
        chronicle = try ChronicleStore(directory: self.directory, backgroundProjections: false, logOptions: .init(noSync: true))
    }

    /// Appends `events` in one atomic batch (one stream each, as a cascade delete does); returns the head.
    @discardableResult
    func append(_ events: [TodoAppEvent]) async throws -> UInt64 {
        try await log.append(events.map { event in
            StreamAppend(stream: event.stream, events: [NewEvent(type: event.type, data: event.encodedData())])
        }).head
    }

    /// Appends `workload`'s next commands' events, one batch each, until the log's head reaches `head`.
    func append(from workload: inout Workload, untilHead head: UInt64) async throws {
        while try log.head() < head {
            let events = workload.next()
            if !events.isEmpty { try await append(events) }
        }
    }

    /// Appends the events of `workload`'s next `commands` commands, one batch each, and folds them into `reference`.
    func append(_ commands: Int, from workload: inout Workload, into reference: inout ReferenceModels) async throws {
        for _ in 0..<commands {
            let events = workload.next()
            if events.isEmpty { continue }
            try await append(events)
            for event in events { reference.apply(event) }
        }
    }

    /// Appends a raw event (for types the domain does not know, or damaged data).
    @discardableResult
    func appendRaw(type: String, stream: String, json: String) async throws -> UInt64 {
        try await log.append(to: stream, events: [NewEvent(type: type, data: Data(json.utf8))]).head
    }

    func cleanup() async {
        await chronicle.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

func day(_ text: String) -> CalendarDay {
    try! CalendarDay(parsing: text)
}

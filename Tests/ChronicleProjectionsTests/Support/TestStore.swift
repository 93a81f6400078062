import ChronicleTestSupport
import ChronicleTodoDomain
import ChronicleLog
import Foundation
@testable import ChronicleProjections

/// A log, read models and a runner in a fresh ``TemporaryFolder`` (laid out like a store:
/// `log/` and `models/`), removed by `cleanup()`. Durability is off: tests do not crash the machine.
final class TestStore: Sendable {
    let directory: String
    let log: EventLog
    let models: ReadModels
    let runner: ProjectionRunner

    init(directory: String? = nil, versions: [ProjectionName: UInt32]? = nil) throws {
        self.directory = try directory ?? TemporaryFolder("projections").path
        log = try EventLog(path: self.directory + "/log", options: .init(noSync: true))
        var allVersions = Dictionary(uniqueKeysWithValues: ProjectionName.allCases.map { ($0, $0.projection.version) })
        for (name, version) in versions ?? [:] { allVersions[name] = version }
        models = try ReadModels(path: self.directory + "/models", options: .init(noSync: true), versions: allVersions)
        runner = ProjectionRunner(log: log, models: models)
    }

    /// Appends `events` in one atomic batch (one stream each, as a cascade delete does); returns the head.
    @discardableResult
    func append(_ events: [DomainEvent]) async throws -> UInt64 {
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

    /// Every key and value of every model database, by database name: what "byte-identical" compares.
    func contents() throws -> [String: [[UInt8]]] {
        try models.contents()
    }

    func cleanup() async {
        await runner.stop()
        log.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

func day(_ text: String) -> CalendarDay {
    try! CalendarDay(parsing: text)
}

extension ReadModels {
    /// Every key and value of every active model database, by database name.
    func contents() throws -> [String: [[UInt8]]] {
        var all: [String: [[UInt8]]] = [:]
        for name in ProjectionName.allCases {
            all.merge(try contents(of: name)) { a, _ in a }
        }
        return all
    }
}

import ChronicleLog
import Foundation

/// Client-side stores for the tests: an event log in a temporary folder, filled through EventLog.
enum TestLog {
    /// Opens (creating) the log of a store folder, laid out like the CLI's (`<store>/log`).
    static func open(store: String, durable: Bool = false) throws -> EventLog {
        try EventLog(path: (store as NSString).appendingPathComponent("log"), options: .init(noSync: !durable))
    }

    /// Appends `count` events over a few streams, in chunks; returns their ids in log order.
    @discardableResult
    static func appendEvents(_ log: EventLog, count: Int, streams: Int = 10, chunk: Int = 1000,
                             start: Int = 0) async throws -> [UUID] {
        var ids: [UUID] = []
        var index = start
        while index < start + count {
            let size = min(chunk, start + count - index)
            let events = (index..<(index + size)).map { n in
                NewEvent(type: "TodoCreated", data: Data(#"{"title":"todo \#(n)","deadline":"2026-12-01","n":\#(n)}"#.utf8))
            }
            try await log.append(to: "todo-\(index / size % streams)", events: events)
            ids += events.map(\.id)
            index += size
        }
        return ids
    }

    /// Every event of the log, in order.
    static func all(_ log: EventLog) throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        try log.scan(after: 0) { events.append($0) }
        return events
    }
}

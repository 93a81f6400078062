import ChronicleWire
import ArgumentParser
import ChronicleLog
import Foundation

/// `chronicle log`: the audit listing.
struct LogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "List stored events in position order (the audit trail).")

    @OptionGroup var store: StoreOptions
    @Option(parsing: .unconditional, help: "Only events after this position.") var after: Int = 0
    @Option(parsing: .unconditional, help: "At most this many events.") var limit: Int?
    @Option(help: "Only this stream, e.g. todo-<id>.") var stream: String?
    @Option(help: "Only this event type, e.g. TodoCreated.") var type: String?
    @Flag(help: "Print one JSON array.") var json = false
    @Flag(help: "Print one JSON event per line.") var ndjson = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative (got \(limit))") }
        guard after >= 0 else { throw ValidationError("--after must be a position, 0 or more (got \(after))") }
        if json && ndjson { throw ValidationError("--json and --ndjson exclude each other") }
    }

    func run() async throws {
        let log = try StoreAccess.openLog(store)
        var remaining = limit ?? Int.max
        var position = UInt64(after)
        var first = true
        // The first page is read before anything is printed, so a store that cannot be read
        // gives only the error line, not a header or a cut JSON array.
        var page = remaining > 0 ? try nextPage(log, after: position, limit: min(remaining, 1000)) : ([], true)
        if json { FileHandle.standardOutput.write(Data("[".utf8)) }
        if !json && !ndjson { CLIOutput.line(Self.header) }
        // Stream in pages: the listing never holds the whole log in memory.
        while true {
            let (events, exhausted) = page
            for event in events {
                remaining -= 1
                position = event.position
                if json {
                    FileHandle.standardOutput.write(Data(((first ? "" : ",") + EventJSON.encode(event)).utf8))
                } else if ndjson {
                    CLIOutput.line(EventJSON.encode(event))
                } else {
                    CLIOutput.line(Self.row(event))
                }
                first = false
            }
            if exhausted || events.isEmpty || remaining <= 0 { break }
            page = try nextPage(log, after: position, limit: min(remaining, 1000))
        }
        if json { FileHandle.standardOutput.write(Data("]\n".utf8)) }
    }

    /// The next page of matching events, and whether the log has nothing after it.
    private func nextPage(_ log: EventLog, after position: UInt64, limit: Int) throws -> (events: [RecordedEvent], exhausted: Bool) {
        if let stream {
            let events = try log.read(stream: stream).filter { $0.position > position && (type == nil || $0.type == type) }
            return (Array(events.prefix(limit)), events.count <= limit)
        }
        if let type {
            let events = try log.read(type: type, after: position, limit: limit)
            return (events, events.count < limit)
        }
        let events = try log.read(after: position, limit: limit)
        return (events, events.count < limit)
    }

    static let header = "POSITION  TIMESTAMP                 TYPE            STREAM                                     V  DATA"

    static func row(_ event: RecordedEvent) -> String {
        func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count), withPad: " ", startingAt: 0) }
        return pad(String(event.position), 8) + "  " + pad(Timestamp.format(milliseconds: event.timestampMilliseconds), 24) + "  "
            + pad(event.type, 14) + "  " + pad(event.stream, 41) + "  " + pad(String(event.version), 1) + "  "
            + String(decoding: event.data, as: UTF8.self)
    }
}

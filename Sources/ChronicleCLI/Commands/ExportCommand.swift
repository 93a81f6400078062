import ArgumentParser
import ChronicleWire
import ChronicleLog
import Foundation

/// `chronicle export`: the log as NDJSON on stdout, for `import` into another store.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the log's events as NDJSON on stdout (as 'log --ndjson'), for 'import'.")

    @OptionGroup var store: StoreOptions
    @Option(parsing: .unconditional, help: "Only events after this position.") var after: Int = 0

    func validate() throws {
        guard after >= 0 else { throw ValidationError("--after must be a position, 0 or more (got \(after))") }
    }

    func run() async throws {
        let log = try StoreAccess.openLog(store)
        defer { log.close() }
        let head = try log.head()
        let line = ProgressLine("export")
        var position = UInt64(after)
        var written: UInt64 = 0
        let output = FileHandle.standardOutput
        while position < head {
            let events = try log.read(after: position, limit: 1000, maxBytes: EventLog.defaultBatchBytes)
            guard let last = events.last else { break }
            var chunk = Data()
            for event in events {
                chunk.append(contentsOf: EventJSON.encode(event).utf8)
                chunk.append(0x0A)
            }
            output.write(chunk)
            written += UInt64(events.count)
            position = last.position
            line.show(done: written, total: head - UInt64(min(UInt64(after), head)))
        }
        line.finish()
    }
}

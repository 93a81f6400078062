import ArgumentParser
import Chronicle
import ChronicleWire
import ChronicleLog
import Foundation

/// `chronicle import FILE`: stores an export's events, all or nothing, each id once.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store the events of an NDJSON file made by 'export' (or 'log --ndjson'): all or nothing, ids already here skipped.",
        discussion: "Each line is checked as the sync server checks a pushed event; one bad line refuses the whole file and stores nothing.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The NDJSON file ('-' for standard input).") var file: String
    @Flag(help: "Print {\"accepted\",\"duplicates\",\"position\"} as JSON.") var json = false

    func run() async throws {
        let data: Data
        do {
            data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile()
                               : try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw RefusedInput("cannot read '\(file)': \(error.localizedDescription)")
        }
        let events = try Self.parse(data, name: file == "-" ? "stdin" : file)
        let opened = try StoreAccess.openStore(store)
        let result: IngestResult
        do {
            result = try await opened.importEvents(events)
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
        if json {
            CLIOutput.line("{\"accepted\":\(result.accepted),\"duplicates\":\(result.duplicates),\"position\":\(result.head)}")
        } else {
            CLIOutput.line("imported \(counted(result.accepted, "event")), \(counted(result.duplicates, "event")) already here; the log ends at \(result.head)")
        }
    }

    /// The events of the file's lines (blank lines skipped), or the first bad line's error.
    static func parse(_ data: Data, name: String) throws -> [ForeignEvent] {
        let line = ProgressLine("import: reading")
        var events: [ForeignEvent] = []
        var number = 0
        for slice in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if slice.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            do {
                events.append(try WireEvent.decodeExported(Data(slice)))
            } catch {
                line.finish()
                throw RefusedInput("\(name), line \(number): \(error); nothing was imported")
            }
            line.show(done: UInt64(events.count), total: nil)
        }
        line.finish()
        return events
    }
}

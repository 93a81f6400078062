import ArgumentParser
import Chronicle
import ChronicleTodoDomain
import Foundation

/// `chronicle stats`: live and completed todos per day.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show the daily stats: todos due each day and how many are completed (days with at least one todo).")

    @OptionGroup var store: StoreOptions
    @Option(help: "The first day to show, YYYY-MM-DD.") var from: String?
    @Option(help: "The last day to show, YYYY-MM-DD.") var to: String?
    @Flag(help: "Print a JSON array of {\"date\",\"total\",\"completed\"}.") var json = false

    func validate() throws {
        let first = try from.map { try parseDay($0, option: "--from") }
        let last = try to.map { try parseDay($0, option: "--to") }
        if let first, let last, last < first { throw ValidationError("--to \(last) is before --from \(first)") }
    }

    func run() async throws {
        let first = try from.map { try parseDay($0, option: "--from") }
        let last = try to.map { try parseDay($0, option: "--to") }
        let chronicle = try StoreAccess.openStore(store)
        let stats = try await chronicle.stats(from: first?.description, to: last?.description)
        if json { CLIOutput.line(ModelJSON.array(stats, ModelJSON.stat)); return }
        CLIOutput.line(CLIOutput.table(["DATE", "TOTAL", "COMPLETED"],
                                       stats.map { [$0.date.description, String($0.total), String($0.completed)] }))
    }
}

/// Parses a calendar day option, with a one-line error naming the option. A day that is
/// not a real date is refused by the domain's rule, as `todo add --deadline` refuses it:
/// exit status 1, not the usage status 64.
func parseDay(_ text: String, option: String) throws -> CalendarDay {
    do {
        return try CalendarDay(parsing: text)
    } catch {
        throw RefusedInput("\(option): \(error.description)")
    }
}

/// A value refused by a domain rule before any store is opened: one `error:` line, exit 1.
struct RefusedInput: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

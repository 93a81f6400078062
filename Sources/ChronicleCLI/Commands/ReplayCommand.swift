import ArgumentParser
import ChronicleTodoDomain
import EventLog
import Foundation
import ChronicleProjections

/// `chronicle replay`: the read models as of a past position, built in memory.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Show the read models as of a past position, built in memory from the log (stored models untouched).")

    @OptionGroup var store: StoreOptions
    @Option(help: "The last position to include (default: the log's head).") var until: UInt64?
    @Flag(help: "Print {\"position\",\"users\",\"todos\",\"stats\"} as JSON.") var json = false

    func run() async throws {
        let log = try StoreAccess.openLog(store)
        let result = try Replay.result(log: log, until: try until ?? log.head())
        let snapshot = result.snapshot
        if json {
            CLIOutput.line("{\"position\":\(result.position),\"users\":\(ModelJSON.array(snapshot.sortedUsers, ModelJSON.user)),"
                           + "\"todos\":\(ModelJSON.array(snapshot.sortedTodos, ModelJSON.todo)),"
                           + "\"stats\":\(ModelJSON.array(snapshot.sortedStats, ModelJSON.stat))}")
            return
        }
        let completed = snapshot.todos.values.filter(\.isCompleted).count
        CLIOutput.line("as of position \(result.position): \(snapshot.users.count) users, \(snapshot.todos.count) todos "
                       + "(\(completed) completed), \(snapshot.stats.count) days with todos")
        if result.skippedEvents > 0 {
            CLIOutput.line("\(result.skippedEvents) of \(result.events) events skipped (unknown type or unreadable data)")
        }
    }
}

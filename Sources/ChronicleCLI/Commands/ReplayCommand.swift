import ArgumentParser
import Domain
import EventLog
import Foundation
import Projections

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

/// The SPEC's JSON shapes with their keys in the SPEC's order, the same bytes on every run
/// (Foundation's encoder orders keys by hash on Linux).
enum ModelJSON {
    /// `{"id","name","age"}`
    static func user(_ user: User) -> String {
        "{\"id\":\"\(user.id.lowercasedString)\",\"name\":\(EventJSON.quote(user.name)),\"age\":\(user.age)}"
    }

    /// `{"id","title","deadline","userId","memo","isCompleted"}`, null for absent.
    static func todo(_ todo: Todo) -> String {
        "{\"id\":\"\(todo.id.lowercasedString)\",\"title\":\(EventJSON.quote(todo.title)),\"deadline\":\"\(todo.deadline)\","
            + "\"userId\":\(todo.userId.map { "\"\($0.lowercasedString)\"" } ?? "null"),"
            + "\"memo\":\(todo.memo.map(EventJSON.quote) ?? "null"),\"isCompleted\":\(todo.isCompleted)}"
    }

    /// `{"date","total","completed"}`
    static func stat(_ stat: DailyStat) -> String {
        "{\"date\":\"\(stat.date)\",\"total\":\(stat.total),\"completed\":\(stat.completed)}"
    }

    static func array<T>(_ items: [T], _ encode: (T) -> String) -> String {
        "[" + items.map(encode).joined(separator: ",") + "]"
    }
}

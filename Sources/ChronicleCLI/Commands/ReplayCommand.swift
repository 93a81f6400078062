import ArgumentParser
import ChronicleProjections
import ChronicleSchema
import ChronicleTodoDomain
import ChronicleTodoModel
import ChronicleLog
import Foundation

/// `chronicle replay`: the read models as of a past position, built in memory.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Show the read models as of a past position, built in memory from the log (stored models untouched).",
        discussion: "A store of another app's model (see 'chronicle model') shows how many entities of each entity and rows "
            + "of each aggregate were shown; --json prints {\"position\",\"entities\":{NAME:[…]},\"aggregates\":{NAME:[…]}}, "
            + "shaped by the model. 'chronicle list NAME --until P' lists one of them.")

    @OptionGroup var store: StoreOptions
    @Option(help: "The last position to include (default: the log's head).") var until: UInt64?
    @Flag(help: "Print {\"position\",\"users\",\"todos\",\"stats\"} as JSON.") var json = false

    func run() async throws {
        let log = try StoreAccess.openLog(store)
        let model = try RecordedModel(log: log).model
        guard model.name == TodoAppModel.model.name else {
            try replayDeclared(try ModelReading(log: log, model: model, until: until))
            return
        }
        let result = try Replay.result(log: log, until: try until ?? log.head())
        let snapshot = result.snapshot
        if json {
            CLIOutput.line("{\"position\":\(result.position),\"users\":\(ModelJSON.array(snapshot.users, ModelJSON.user)),"
                           + "\"todos\":\(ModelJSON.array(snapshot.todos, ModelJSON.todo)),"
                           + "\"stats\":\(ModelJSON.array(snapshot.stats, ModelJSON.stat))}")
            return
        }
        let completed = snapshot.todos.filter(\.isCompleted).count
        CLIOutput.line("as of position \(result.position): \(snapshot.users.count) users, \(snapshot.todos.count) todos "
                       + "(\(completed) completed), \(snapshot.stats.count) days with todos")
        if result.skippedEvents > 0 {
            CLIOutput.line("\(result.skippedEvents) of \(result.events) events skipped (unknown type or unreadable data)")
        }
    }

    /// Another app's store: its entities and aggregates as of the position, by the model it records.
    private func replayDeclared(_ reading: ModelReading) throws {
        let model = reading.model, snapshot = reading.replayed.snapshot
        if json {
            let entities = model.entities.map { entity in
                ChronicleModel.FieldValue.text(entity.name).json + ":[" + snapshot.shown(entity.name).map(model.json(of:)).joined(separator: ",") + "]"
            }
            let aggregates = model.aggregates.map { aggregate in
                ChronicleModel.FieldValue.text(aggregate.name).json + ":["
                    + (snapshot.rows(of: aggregate.name) ?? []).map { model.json(of: $0, in: aggregate) }.joined(separator: ",") + "]"
            }
            CLIOutput.line("{\"position\":\(reading.replayed.position),\"entities\":{\(entities.joined(separator: ","))},"
                           + "\"aggregates\":{\(aggregates.joined(separator: ","))}}")
            return
        }
        let entities = model.entities.map { "\($0.name) \(snapshot.shown($0.name).count)" }
        let rows = model.aggregates.map { "\($0.name) \(snapshot.rows(of: $0.name)?.count ?? 0)" }
        CLIOutput.line("as of position \(reading.replayed.position) (model '\(model.name)' version \(model.version)): "
                       + "entities shown: \(entities.joined(separator: ", "))" + (rows.isEmpty ? "" : "; rows: \(rows.joined(separator: ", "))"))
    }
}

import ArgumentParser
import ChronicleSchema
import Foundation

/// `chronicle show ENTITY ID`: one live entity of the store's model, read by the model the
/// store records.
struct EntityShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one live entity of the store's model.",
        discussion: "Reads any app's store by the model it records (see 'chronicle model'), folding the log in memory.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The entity's name, as 'chronicle model' shows it (e.g. Todo).") var entity: String
    @Argument(help: "Its id.") var id: String
    @Flag(help: "Print the entity as one JSON object, shaped by the model.") var json = false
    @Option(help: "As of this position of the log: what the app showed then (default: the log's head).") var until: UInt64?

    func validate() throws {
        _ = try parseID(id, what: "entity")
    }

    func run() async throws {
        let id = try parseID(id, what: "entity")
        let reading = try ModelReading(store, until: until)
        guard let entity = try reading.entity(entity) else { return }
        guard let state = reading.replayed.snapshot.shown(entity.name, id: id) else {
            let kept = reading.replayed.snapshot.state(of: entity.name, id: id)
            throw RefusedInput("\(kept == nil ? "unknown" : "hidden") \(entity.name) \(id.uuidString.lowercased())"
                               + (kept?.isDeleted == true ? ": it is deleted" : kept == nil ? "" : ": its parent is deleted"))
        }
        if json {
            CLIOutput.line(reading.model.json(of: state))
            return
        }
        let rows = [["id", id.uuidString.lowercased()]] + entity.fields.map { [$0.name, ModelReading.cell(state.values[$0.name])] }
        let width = rows.map { $0[0].count }.max() ?? 0
        CLIOutput.line(rows.map { $0[0].padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0[1] }.joined(separator: "\n"))
    }
}

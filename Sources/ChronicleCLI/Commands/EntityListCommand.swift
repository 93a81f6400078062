import ArgumentParser
import ChronicleSchema
import Foundation

/// `chronicle list NAME`: the live entities of any entity of the store's model, or the rows
/// of one of its aggregates, read by the model the store records.
struct EntityListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the live entities of an entity of the store's model, or the rows of an aggregate.",
        discussion: "Reads any app's store by the model it records (see 'chronicle model'), folding the log in memory: "
            + "entities sorted by id, rows by their key.")

    @OptionGroup var store: StoreOptions
    @Argument(help: "An entity's or an aggregate's name, as 'chronicle model' shows it (e.g. Todo, DailyStat).") var name: String
    @Flag(help: "Print a JSON array of the entities (or rows), shaped by the model.") var json = false
    @Option(help: "As of this position of the log: what the app showed then (default: the log's head).") var until: UInt64?

    func run() async throws {
        let reading = try ModelReading(store, until: until)
        let model = reading.model
        guard let entity = try reading.entity(name, orAggregate: true) else {
            // An aggregate (entity(_:orAggregate:) checked the name).
            let aggregate = model.aggregates.first { $0.name == name }!
            let rows = reading.replayed.snapshot.rows(of: name) ?? []
            if json {
                CLIOutput.line("[" + rows.map { model.json(of: $0, in: aggregate) }.joined(separator: ",") + "]")
                return
            }
            CLIOutput.line(CLIOutput.table([aggregate.key] + aggregate.measures.map(\.name), rows.map { row in
                [ModelReading.cell(row.key)] + aggregate.measures.map { ModelReading.cell(row.measures[$0.name]) }
            }))
            return
        }
        let shown = reading.replayed.snapshot.shown(entity.name)
        if json {
            CLIOutput.line("[" + shown.map(model.json(of:)).joined(separator: ",") + "]")
            return
        }
        CLIOutput.line(CLIOutput.table(["id"] + entity.fields.map(\.name), shown.map { state in
            [state.id.uuidString.lowercased()] + entity.fields.map { ModelReading.cell(state.values[$0.name]) }
        }))
    }
}

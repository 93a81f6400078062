import Chronicle
import ChronicleLog
import Foundation

/// `catch-up-entities`: brings a store's stored entities (`DIR/entities`, the read model of
/// the model the store records) up to its log's head, saying after each committed write
/// transaction how far it got; several at once on one store, one of them killed, is the
/// multi-process test of a catch-up from far behind. With `--rebuild`, folds the whole log
/// again beside the states readers use and swaps it in (blue/green).
enum EntitiesCatchUp {
    static func run(_ raw: [String]) throws {
        let arguments = try Arguments(raw, flagNames: ["wait-for-go", "rebuild"])
        let store = try arguments.string("store")
        let log = try EventLog(path: store + "/log")
        defer { log.close() }
        guard let record = try log.modelRecords().last else { throw UsageError("the store at \(store) records no model") }
        let model = try ChronicleModel(record: Data(record.bytes))
        let states = try ModelStates(path: store + "/entities", model: model, log: log)
        states.onChange { _, _, position in Output.line("committed \(position)") }
        Output.line("ready")
        if arguments.flag("wait-for-go") { _ = readLine() }
        let reached = try arguments.flag("rebuild")
            ? states.rebuild { position in Output.line("committed \(position)") }
            : states.catchUp()
        Output.line("done \(reached)")
    }
}

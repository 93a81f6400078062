import Chronicle
import ChronicleLog
import Foundation

/// `catch-up-models`: brings a store's todo-app read models (`DIR/models`) up to its log's
/// head in a process of its own, and says how far: the other process of the tests of the
/// projections' appliers across processes (a CLI read no longer applies them).
enum ModelsCatchUp {
    static func run(_ raw: [String]) async throws {
        let arguments = try Arguments(raw, flagNames: [])
        let store = try arguments.string("store")
        let log = try EventLog(path: store + "/log")
        defer { log.close() }
        let models = try ReadModels(path: store + "/models")
        Output.line("done \(try await ProjectionRunner(log: log, models: models).catchUp())")
    }
}

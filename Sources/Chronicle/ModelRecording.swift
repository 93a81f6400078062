import ChronicleSchema
import ChronicleLog
import Foundation

/// A store records the model it is opened with (``ChronicleModel/record()``, in the log's
/// `model-records`), one record per version, so that tools read it without the app's code.
enum ModelRecording {
    /// Records `model` in `log` unless the store holds it already, or a newer version (an
    /// older app meeting a store an upgraded one wrote: it records nothing).
    /// - throws: ``ChronicleError/cannotOpen(path:reason:)`` when the store holds another
    ///   app's model, or this version recorded otherwise (a changed model needs a new
    ///   version); nothing is written then.
    static func record(_ model: ChronicleModel, in log: EventLog, path: String) throws(ChronicleError) {
        let records = try ChronicleError.mapping { try log.modelRecords() }
        var previous: ChronicleModel?
        for record in records where record.version <= UInt32(clamping: model.version) {
            guard let recorded = try? ChronicleModel(record: Data(record.bytes)) else {
                throw .cannotOpen(path: path, reason: "its record of model version \(record.version) cannot be read")
            }
            guard recorded.name == model.name else {
                throw .cannotOpen(path: path, reason: "it holds model '\(recorded.name)', not '\(model.name)'")
            }
            if record.version == UInt32(clamping: model.version), recorded != model {
                throw .cannotOpen(path: path, reason: "it records model '\(model.name)' version \(model.version) otherwise: "
                                  + "a changed model needs a new version")
            }
            if record.version < UInt32(clamping: model.version) { previous = recorded }
        }
        guard records.allSatisfy({ $0.version < UInt32(clamping: model.version) }) else { return }
        if let previous { try ModelEvolution.check(model, from: previous, log: log, path: path) }
        _ = try ChronicleError.mapping {
            try log.recordModel(ModelRecord(version: UInt32(clamping: model.version), bytes: Array(model.record())))
        }
    }
}

import ChronicleSchema
import ChronicleTodoModel
import ChronicleLog
import Foundation

/// The app's model a store records: the newest version in its log's `model-records`, or the
/// built-in todo app's for a store that records none (written before models were recorded).
struct RecordedModel {
    var model: ChronicleModel
    /// The version recorded; nil: none is, the todo app's is assumed.
    var recordedVersion: UInt32?
    /// The recorded bytes (the todo app's record when none is).
    var bytes: [UInt8]

    /// Reads it from `log`.
    /// - throws: ``RefusedInput`` when the newest record cannot be read.
    init(log: EventLog) throws {
        guard let newest = try log.modelRecords().last else {
            model = TodoAppModel.model
            recordedVersion = nil
            bytes = Array(TodoAppModel.model.record())
            return
        }
        do {
            model = try ChronicleModel(record: Data(newest.bytes))
        } catch {
            throw RefusedInput("the store's model version \(newest.version): \(error.description)")
        }
        recordedVersion = newest.version
        bytes = newest.bytes
    }
}

import ChronicleSchema
import ChronicleTodoModel
import ChronicleLog
import Foundation
import ChronicleProjections

extension ChronicleStore {
    /// The key effects of pulled `events`, stored with them so that this store's commands and
    /// other processes decide on what the pull brought: the todo app's keys for its model, the
    /// declared model's (`ChronicleModel.Decider.effects(of:)`) for any other.
    /// `events` are at their server positions (0: none).
    func pulledKeys(_ events: [RecordedEvent]) throws -> [AppendKey] {
        if isTodoAppModel { return try ConsistencyKeys.effects(ofPulled: events, log: log, loader: loader) }
        let states = try caughtUpEntityStates()
        return ModelAppend.keys(ChronicleModel.Decider(model).effects(of: try states.merged(pulled: events)))
    }
}

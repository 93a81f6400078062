import ChronicleSchema
import ChronicleLog
import Foundation
import ChronicleProjections

extension ChronicleStore {
    /// The key effects of pulled `events`, stored with them so that this store's commands and
    /// other processes decide on what the pull brought: unique values claimed and released
    /// (``ChronicleModel/Decider/effects(of:)`` on the entities they change), parents' children
    /// keys touched. Read from the log alone. `events` are at their server positions (0: none).
    func pulledKeys(_ events: [RecordedEvent]) throws -> [AppendKey] {
        let changes = try ModelStates.merged(pulled: events, log: log, reader: eventReader)
        var conditions = ChronicleModel.Decider(model).effects(of: changes)
        let known = Set(conditions)
        conditions += ModelStates.parentTouches(pulled: events, reader: eventReader).filter { !known.contains($0) }
        return ModelAppend.keys(conditions)
    }
}

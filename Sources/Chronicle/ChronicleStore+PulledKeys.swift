import ChronicleSchema
import ChronicleLog
import Foundation
import ChronicleProjections

extension ChronicleStore {
    /// The key effects of pulled `events` (``ChronicleModel/Decider/effects(of:)``), stored
    /// with them so that this store's commands and other processes decide on what the pull
    /// brought. Read from the log alone. `events` are at their server positions (0: none).
    func pulledKeys(_ events: [RecordedEvent]) throws -> [AppendKey] {
        let changes = try ModelStates.merged(pulled: events, log: log, reader: eventReader)
        return ModelAppend.keys(ChronicleModel.Decider(model).effects(of: changes))
    }
}

import ChronicleSchema
import ChronicleLog
import Foundation
import ChronicleProjections

/// Whether a new version of the app's model fits the store an earlier version wrote: it must
/// read every event the store holds (``ChronicleModel/evolution(from:)``), declare every entity
/// the log has events of, and find no two live entities sharing a value it made unique.
/// Checked once, before the new version is recorded; a model that does not fit is refused and
/// the store is left as it was.
enum ModelEvolution {
    /// - throws: ``ChronicleError/cannotOpen(path:reason:)`` naming the model, entity and field.
    static func check(_ model: ChronicleModel, from recorded: ChronicleModel, log: EventLog, path: String) throws(ChronicleError) {
        func refused(_ reason: String) -> ChronicleError {
            .cannotOpen(path: path, reason: "version \(model.version) of its model does not fit it: \(reason)")
        }
        let evolution: ChronicleModel.Evolution
        do {
            evolution = try model.evolution(from: recorded)
        } catch {
            throw refused(error.description)
        }
        for entity in evolution.removedEntities {
            for type in entity.eventTypes {
                guard let held = try ChronicleError.mapping({ try log.read(type: type, after: 0, limit: 1) }).first else { continue }
                throw refused("model '\(model.name)', entity '\(entity.name)': no longer declared, but the store holds its events "
                              + "(\(type) at position \(held.position))")
            }
        }
        guard !evolution.newlyUnique.isEmpty else { return }
        let snapshot = try ChronicleError.mapping { try ModelReplay.snapshot(log: log, model: model).snapshot }
        for path in evolution.newlyUnique {
            guard let uniqueness = model.entity(named: path.entity)?.field(named: path.field)?.unique else { continue }
            var holders: [String: UUID] = [:]
            for state in snapshot.states(of: path.entity).sorted(by: { $0.id.uuidString < $1.id.uuidString }) where !state.isDeleted {
                guard case .text(let text)? = state.values[path.field] else { continue }
                if let other = holders.updateValue(state.id, forKey: uniqueness.key(text)) {
                    throw refused("model '\(model.name)', entity '\(path.entity)', field '\(path.field)': now unique, but live entities "
                                  + "\(other.uuidString.lowercased()) and \(state.id.uuidString.lowercased()) share \(ChronicleModel.FieldValue.text(text).json)")
                }
            }
        }
    }
}

import ChronicleSchema
import ChronicleLog
import Foundation
import ChronicleProjections

/// What the generic `list` and `show` read: the store's recorded model and its entities,
/// folded from the log in memory (``ModelReplay``), so any app's store is read without its code.
struct ModelReading {
    let model: ChronicleModel
    let replayed: ModelReplay.Result

    /// The store's entities as of position `until` (nil: the log's head); with
    /// `forDecisions`, each stream's version too (what a command decides at).
    /// - throws: ``ProjectionError/beyondHead(position:head:)`` for a position past the log's head.
    init(_ options: StoreOptions, until: UInt64? = nil, forDecisions: Bool = false) throws {
        let log = try StoreAccess.openLog(options)
        try self.init(log: log, model: try RecordedModel(log: log).model, until: until, forDecisions: forDecisions)
    }

    /// The entities of `log` under `model` (the one the store records) as of position `until`.
    init(log: EventLog, model: ChronicleModel, until: UInt64?, forDecisions: Bool = false) throws {
        self.model = model
        replayed = try ModelReplay.snapshot(log: log, model: model, until: until, keepingVersions: forDecisions)
        if replayed.unread > 0 {
            CLIOutput.note("note: \(replayed.unread) event\(replayed.unread == 1 ? "" : "s") of the log "
                           + "model '\(model.name)' version \(model.version) cannot read \(replayed.unread == 1 ? "is" : "are") "
                           + "kept but not shown (first: \(replayed.firstProblem ?? "-"))")
        }
    }

    /// The declared entity `name`.
    /// - throws: ``RefusedInput`` naming the model's entities when it declares none so named.
    func entity(_ name: String, orAggregate allowed: Bool = false) throws -> ChronicleModel.Entity? {
        if let entity = model.entity(named: name) { return entity }
        if allowed, model.aggregates.contains(where: { $0.name == name }) { return nil }
        let names = model.entities.map(\.name) + (allowed ? model.aggregates.map(\.name) : [])
        throw RefusedInput("model '\(model.name)' has no \(allowed ? "entity or aggregate" : "entity") '\(name)' "
                           + "(it has \(names.joined(separator: ", ")))")
    }

    /// A value for a table's cell: text unquoted, a set's ids joined, `-` for none.
    static func cell(_ value: ChronicleModel.FieldValue?) -> String {
        switch value {
        case nil: "-"
        case .text(let text)?: text
        case .ids(let ids)?: ids.isEmpty ? "-" : ids.map { $0.uuidString.lowercased() }.joined(separator: ",")
        case let value?: value.json
        }
    }
}

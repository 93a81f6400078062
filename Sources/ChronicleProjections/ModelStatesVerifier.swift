import ChronicleSchema
import ChronicleLog
import Foundation
import ChronicleLMDB

/// Checks a declared model's stored entities (`entities/`, ``ModelStates``) against the log,
/// without writing (`chronicle verify`).
///
/// ```swift
/// for problem in try ModelStatesVerifier.problems(path: store + "/entities", model: notebook, log: log, deep: true) { print(problem) }
/// ```
public enum ModelStatesVerifier {
    /// What is wrong with the stored entities, one line each (empty when intact).
    ///
    /// Always: the states are folded no further than the log's head. With `deep`, the log is
    /// also folded in memory (``ModelReplay``) up to the states' position and compared with
    /// every stored entity (whether it is hidden by a parent too), its index entries (unique values, children by parent, indexed
    /// values) and every aggregate's rows. States folded by another model or layout, or never
    /// folded, are not compared: the next store opened on them folds them again.
    public static func problems(path: String, model: ChronicleModel, log: EventLog, deep: Bool) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path + "/data.mdb") else { return [] }
        let environment: Environment
        do {
            environment = try Environment(path: path, options: .init(mapSize: 16 << 20, maxDatabases: ModelStates.maxDatabases(model)))
        } catch {
            return ["the entities' read model cannot be opened: \(error)"]
        }
        let head = try log.head()
        return try ProjectionError.mappingStorage {
            try environment.read { txn -> [String] in
                guard let shared = try? txn.openDatabase(named: "slots", create: false),
                      try txn.get(shared, key: Array("model".utf8)).map(Array.init) == ModelStates.fingerprint(of: model) else { return [] }
                // The tables readers use (blue/green: a rebuild may be filling the others).
                let slot = try ModelStates.activeSlot(txn, shared: shared)
                let meta = try txn.openDatabase(named: ModelStateTables.name("meta", slot: slot), create: false)
                let position = try ModelStates.checkpoint(txn, meta)
                guard position <= head else {
                    return ["the entities are folded up to position \(position) but the log ends at \(head); they are folded again at the next open"]
                }
                guard deep else { return [] }
                let fold = try ModelReplay.snapshot(log: log, model: model, until: position).snapshot
                return try compare(txn, slot: slot, model: model, with: fold)
            }
        }
    }

    private static func compare(_ txn: Transaction, slot: Int, model: ChronicleModel, with fold: ChronicleModel.Snapshot) throws -> [String] {
        func table(_ name: String) throws -> Database { try txn.openDatabase(named: ModelStateTables.name(name, slot: slot), create: false) }
        var problems: [String] = []
        // What the fold says each database holds.
        var states: [[UInt8]: ChronicleModel.EntityState] = [:]
        var shown = Set<[UInt8]>()   // the entities the fold shows: a live one not among them is hidden
        var unique = Set<[UInt8]>(), children = Set<[UInt8]>(), values = Set<[UInt8]>()
        for (number, entity) in model.entities.enumerated() {
            let indexed = ModelStates.indexedFields(of: entity, in: model)
            let plan = IndexedField.plan(of: entity, valueIndexed: indexed)
            for state in fold.shown(entity.name) { shown.insert(ModelStateKeys.state(number, state.id)) }
            for state in fold.states(of: entity.name) {
                states[ModelStateKeys.state(number, state.id)] = state
                for (index, field) in entity.fields.enumerated() {
                    if let uniqueness = field.unique, var key = ModelStatesBatch.uniqueEntry(state, field: field.name, under: uniqueness, entity: number, index: index) {
                        ModelStateKeys.append(state.id, to: &key)
                        unique.insert(key)
                    }
                    if indexed.contains(field.name), var key = ModelStatesBatch.valueEntry(state, field: field.name, entity: number, index: index) {
                        ModelStateKeys.append(state.id, to: &key)
                        values.insert(key)
                    }
                }
                for field in plan where field.namesEntities {
                    ModelStatesBatch.forEachChildrenEntry(state, field: field, entity: number) { entry in
                        var key = entry
                        ModelStateKeys.append(state.id, to: &key)
                        children.insert(key)
                    }
                }
            }
        }
        // The entities: the live ones in their entity's table, the deleted ones apart.
        var differing: [String] = [], extra: [String] = [], misplaced: [String] = []
        func check(_ number: Int, _ id: UUID, _ value: UnsafeRawBufferPointer, inDeleted: Bool) throws {
            let key = ModelStateKeys.state(number, id)
            let name = model.entities[number].name
            guard let expected = states.removeValue(forKey: key) else {
                extra.append("\(name) \(id.uuidString.lowercased())")
                return
            }
            let stored = try StoredEntity.decode(value, id: id, entity: model.entities[number].name, layout: model.entities[number].fields.map(\.name))
            if stored.state != expected || stored.isShown != shown.contains(key) {
                differing.append("\(name) \(id.uuidString.lowercased())")
            } else if stored.state.isDeleted != inDeleted {
                misplaced.append("\(name) \(id.uuidString.lowercased())")
            }
        }
        for number in model.entities.indices {
            try txn.scan(try table(ModelStateTables.liveTable(number)), prefix: []) { key, value in
                guard key.count == 16, let id = ModelStateKeys.trailingID(key) else { return }
                try check(number, id, value, inDeleted: false)
            }
        }
        try txn.scan(try table("deleted"), prefix: []) { key, value in
            guard let id = ModelStateKeys.trailingID(key), key.count == 18 else { return }
            let number = Int(key[0]) << 8 | Int(key[1])
            guard number < model.entities.count else {
                extra.append("entity #\(number) \(id.uuidString.lowercased())")
                return
            }
            try check(number, id, value, inDeleted: true)
        }
        let missing = states.values.map { "\($0.entity) \($0.id.uuidString.lowercased())" }.sorted()
        for (what, list) in [("differs from the log's fold", differing), ("is stored but not in the log", extra), ("is missing", missing),
                             ("is stored in the table of the other state (live or deleted)", misplaced)] where !list.isEmpty {
            problems.append("entities: \(list.count) \(what), first \(list.sorted()[0]); the next 'chronicle rebuild' or open folds them again")
        }
        // The indexes.
        for (name, expected) in [("unique", unique), ("children", children), ("values", values)] {
            var stored = Set<[UInt8]>()
            try txn.scan(try table(name), prefix: []) { key, _ in stored.insert(Array(key)) }
            if stored != expected {
                problems.append("entities: the '\(name)' index holds \(stored.subtracting(expected).count) entries the log's fold has not, "
                                + "and lacks \(expected.subtracting(stored).count)")
            }
        }
        // The aggregates' rows.
        let rowsDB = try table("rows")
        for (number, aggregate) in model.aggregates.enumerated() {
            guard let entity = model.entity(named: aggregate.entity) else { continue }
            var stored: [ChronicleModel.AggregateRow] = []
            try txn.scan(rowsDB, prefix: ModelStateKeys.prefix(number)) { key, value in
                stored.append(try StoredAggregateRow.decode(value, aggregate: aggregate.name).row(of: aggregate, in: entity))
            }
            let expected = fold.rows(of: aggregate.name) ?? []
            if stored.sorted(by: { $0.key.sortsBefore($1.key) }) != expected {
                problems.append("entities: \(aggregate.name) holds \(stored.count) rows, the log's fold \(expected.count)"
                                + (stored.count == expected.count ? ", with other figures" : ""))
            }
        }
        return problems
    }
}

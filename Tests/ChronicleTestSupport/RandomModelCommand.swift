import ChronicleSchema
import Foundation

/// Random commands for any declared model, read off its declaration: creations, updates of a
/// field or two, deletions, restorations and set changes, with values valid and not (blank
/// names, impossible days, unknown ids, null for required fields) and unique texts that
/// collide up to case.
public struct RandomModelCommand {
    public let model: ChronicleModel

    public init(model: ChronicleModel) {
        self.model = model
    }

    static let texts = ["Work", "work", " Home ", "home", "", "Ideas", "Pay rent", "x", "Groceries", "Trip", "trip", "Books"]
    static let days = ["2026-03-01", "2026-03-02", "2026-12-31", "2026-12-01", "2026-12-02", "2026-02-30"]
    static let decimals = ["2.50", "10", "0.01", "abc"]
    static let timestamps = ["2026-03-01T09:30:00.000Z", "yesterday"]

    /// A command on one of the known entities (`known[entity]`, created so far) or a new one.
    public func random(_ random: inout SeededGenerator, known: [String: [UUID]]) -> ChronicleModel.Command {
        let entity = model.entities[Int.random(in: 0..<model.entities.count, using: &random)]
        let ids = known[entity.name] ?? []
        func existing() -> UUID {
            ids.isEmpty || Int.random(in: 0..<12, using: &random) == 0 ? random.uuid() : ids[Int.random(in: 0..<ids.count, using: &random)]
        }
        let sets = entity.fields.filter { if case .references = $0.type { true } else { false } }
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4:
            var values: [String: ChronicleModel.FieldValue] = [:]
            for field in entity.fields where !field.isOptional || Bool.random(using: &random) {
                if let value = value(for: field, &random, known: known) { values[field.name] = value }
            }
            return .init(entity: entity.name, id: random.uuid(), action: .create(values))
        case 4..<7:
            var values: [String: ChronicleModel.FieldValue] = [:]
            for _ in 0..<Int.random(in: 1...2, using: &random) {
                let field = entity.fields[Int.random(in: 0..<entity.fields.count, using: &random)]
                if let value = value(for: field, &random, known: known) { values[field.name] = value }
            }
            return .init(entity: entity.name, id: existing(), action: .update(values))
        case 7: return .init(entity: entity.name, id: existing(), action: .delete)
        case 8: return .init(entity: entity.name, id: existing(), action: .restore)
        default:
            guard let set = sets.first, case .references(let target) = set.type, let member = (known[target] ?? []).randomElement(using: &random) else {
                return .init(entity: entity.name, id: existing(), action: .delete)
            }
            let action: ChronicleModel.Command.Action = Bool.random(using: &random) ? .add(field: set.name, member: member)
                                                                                     : .remove(field: set.name, member: member)
            return .init(entity: entity.name, id: existing(), action: action)
        }
    }

    private func value(for field: ChronicleModel.Field, _ random: inout SeededGenerator, known: [String: [UUID]]) -> ChronicleModel.FieldValue? {
        func pick(_ pool: [String]) -> String { pool[Int.random(in: 0..<pool.count, using: &random)] }
        // Now and then no value: a creation leaves the field out, an update clears it (or is refused).
        if Int.random(in: 0..<12, using: &random) == 0 { return .null }
        switch field.type {
        case .text: return .text(pick(Self.texts))
        case .integer: return .integer(Int.random(in: -5...130, using: &random))
        case .number: return .number(Double(Int.random(in: 0...1000, using: &random)) / 8)
        case .decimal: return .text(pick(Self.decimals))
        case .boolean: return .boolean(Bool.random(using: &random))
        case .day: return .text(pick(Self.days))
        case .timestamp: return .text(pick(Self.timestamps))
        case .reference(let target):
            let pool = known[target] ?? []
            if pool.isEmpty || Int.random(in: 0..<8, using: &random) == 0 { return field.isOptional ? nil : .text(random.uuid().uuidString) }
            return .text(pool[Int.random(in: 0..<pool.count, using: &random)].uuidString)
        case .references(let target):
            let pool = known[target] ?? []
            let members = (0..<Int.random(in: 0...2, using: &random)).compactMap { _ in pool.randomElement(using: &random) }
            return .ids(ChronicleModel.sortedIDs(members))
        }
    }
}


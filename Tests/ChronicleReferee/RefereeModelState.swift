import Foundation

/// What every device shows of a declared model once all have pushed and pulled everything,
/// folded from the server's order by the rules docs/PROTOCOL.md and the DocC article
/// "Declaring your model" state, written apart from the product:
///
/// - a creation makes an entity (a second one of the same id changes nothing); an update
///   writes the fields it gives, of a live entity; a deletion hides it until a restoration;
/// - a boolean set by events of its own follows the last of them; a set changes per member;
/// - empty text of a field that keeps none is no value; `null` in an update clears an
///   optional field (not such text); a field read under a name it had before is the field;
/// - an event whose data does not fit the model changes nothing;
/// - shown: live, and every parent that hides it (a reference with a parent deletion rule)
///   shown; a set shows its shown members; live values of a unique field that collide are
///   shown in the order of the writes that gave them, the next with ` (2)`, and so on;
/// - an aggregate's row per grouped value of the shown entities: counts, counts of true,
///   sums (integers as integers, decimals and numbers summed exactly in decimal).
///
/// ```swift
/// let state = RefereeModelState.fold(serverOrder, model: try RefereeModel(record: record))
/// state.shown("Note")       // id → field → value
/// ```
public struct RefereeModelState: Sendable {
    struct Stored: Sendable {
        var values: [String: RefereeValue]
        var deleted = false
        /// Per unique field, the position of the write that gave its value.
        var written: [String: UInt64] = [:]
    }

    public let model: RefereeModel
    var entities: [String: [String: Stored]] = [:]

    /// Folds `events` (the server's order) under `model`.
    public static func fold(_ events: [RefereeEvent], model: RefereeModel) -> RefereeModelState {
        var state = RefereeModelState(model: model)
        for event in events { state.apply(event) }
        return state
    }

    mutating func apply(_ event: RefereeEvent) {
        for entity in model.entities where event.stream.hasPrefix(entity.stream + "-") {
            let id = String(event.stream.dropFirst(entity.stream.count + 1)).lowercased()
            apply(event, to: entity, id: id)
            return
        }
    }

    private mutating func apply(_ event: RefereeEvent, to entity: RefereeModel.Entity, id: String) {
        var stored = entities[entity.name]?[id]
        let live = stored.map { !$0.deleted } ?? false
        switch event.type {
        case entity.created:
            guard stored == nil, let given = values(event, of: entity, update: false),
                  entity.fields.allSatisfy({ !$0.required || given[$0.name] != nil }) else { return }
            var values: [String: RefereeValue] = [:]
            for field in entity.fields {
                if field.type == "references" { values[field.name] = .array([]) }
                if let value = given[field.name] ?? field.defaultValue { values[field.name] = value }
            }
            stored = Stored(values: values)
            note(given, of: entity, at: event.position, in: &stored!)
        case entity.updated:
            guard live, let given = values(event, of: entity, update: true) else { return }
            for (name, value) in given { stored!.values[name] = value == .null ? nil : value }
            note(given, of: entity, at: event.position, in: &stored!)
        case entity.deleted:
            guard live else { return }
            stored!.deleted = true
        case entity.restored:
            guard stored?.deleted == true else { return }
            stored!.deleted = false
        default:
            guard live else { return }
            for field in entity.fields {
                if field.type == "boolean", event.type == field.setOn || event.type == field.setOff {
                    stored!.values[field.name] = .bool(event.type == field.setOn)
                } else if field.type == "references", event.type == field.setOn || event.type == field.setOff {
                    guard case .string(let member)? = event.data[field.member ?? "id"], UUID(uuidString: member) != nil else { return }
                    var members = Set(Self.ids(stored!.values[field.name]))
                    if event.type == field.setOn { members.insert(member.lowercased()) } else { members.remove(member.lowercased()) }
                    stored!.values[field.name] = .array(members.sorted().map(RefereeValue.string))
                }
            }
        }
        entities[entity.name, default: [:]][id] = stored
    }

    /// The fields a creation or update gives (`.null`: cleared); nil when a value does not fit.
    private func values(_ event: RefereeEvent, of entity: RefereeModel.Entity, update: Bool) -> [String: RefereeValue]? {
        var values: [String: RefereeValue] = [:]
        for field in entity.fields where field.setOn == nil {
            guard let raw = event.data[field.name] ?? field.formerNames.reversed().lazy.compactMap({ event.data[$0] }).first else { continue }
            if raw == .null {
                if update, field.clearable, !field.emptyIsAbsent { values[field.name] = .null }
                continue
            }
            switch (field.type, raw) {
            case ("text", .string(var text)), ("timestamp", .string(var text)):
                if field.composed, (event.schemaVersion ?? 1) < entity.schemaVersion { text = text.precomposedStringWithCanonicalMapping }
                if text.isEmpty, field.emptyIsAbsent { values[field.name] = update ? .null : nil } else { values[field.name] = .string(text) }
            case ("day", .string(let text)), ("decimal", .string(let text)):
                values[field.name] = .string(text)
            case ("reference", .string(let text)):
                guard UUID(uuidString: text) != nil else { return nil }
                values[field.name] = .string(text.lowercased())
            case ("integer", .integer), ("boolean", .bool):
                values[field.name] = raw
            case ("number", .integer(let number)):
                values[field.name] = .number(Double(number))
            case ("number", .number):
                values[field.name] = raw
            case ("references", .array(let members)):
                values[field.name] = .array(Set(members.compactMap { if case .string(let id) = $0 { id.lowercased() } else { nil } })
                    .sorted().map(RefereeValue.string))
            default:
                return nil
            }
        }
        return values
    }

    private func note(_ given: [String: RefereeValue], of entity: RefereeModel.Entity, at position: UInt64, in stored: inout Stored) {
        for field in entity.fields where field.unique != nil && given[field.name] != nil { stored.written[field.name] = position }
    }

    static func ids(_ value: RefereeValue?) -> [String] {
        guard case .array(let members)? = value else { return [] }
        return members.compactMap { if case .string(let id) = $0 { id } else { nil } }
    }

    // MARK: - What is shown

    func isShown(_ entity: String, _ id: String, depth: Int = 0) -> Bool {
        guard let stored = entities[entity]?[id], !stored.deleted, let declared = model.entity(entity) else { return false }
        guard depth <= model.entities.count else { return true }
        for field in declared.fields where field.hides {
            guard let target = field.target, case .string(let parent)? = stored.values[field.name],
                  entities[target]?[parent] != nil else { continue }
            if !isShown(target, parent, depth: depth + 1) { return false }
        }
        return true
    }

    /// The shown entities of `entity`: id → every declared field's value (`.null` for none,
    /// a set as the sorted ids of its shown members, a colliding unique value with its suffix).
    public func shown(_ entity: String) -> [String: [String: RefereeValue]] {
        guard let declared = model.entity(entity) else { return [:] }
        var shown: [String: [String: RefereeValue]] = [:]
        for (id, stored) in entities[entity] ?? [:] where isShown(entity, id) {
            var values: [String: RefereeValue] = [:]
            for field in declared.fields {
                if field.type == "references", let target = field.target {
                    values[field.name] = .array(Self.ids(stored.values[field.name]).filter { isShown(target, $0) }.sorted().map(RefereeValue.string))
                } else {
                    values[field.name] = stored.values[field.name] ?? .null
                }
            }
            shown[id] = values
        }
        for field in declared.fields {
            guard let unique = field.unique else { continue }
            var groups: [String: [String]] = [:]
            for (id, values) in shown {
                guard case .string(let text)? = values[field.name] else { continue }
                let key = unique == "caseFolded" ? RefereeCaseFolding.fold(text.trimmingCharacters(in: .whitespacesAndNewlines)) : text
                groups[key, default: []].append(id)
            }
            for ids in groups.values where ids.count > 1 {
                let ordered = ids.sorted { (entities[entity]?[$0]?.written[field.name] ?? .max) < (entities[entity]?[$1]?.written[field.name] ?? .max) }
                for (place, id) in ordered.enumerated() where place > 0 {
                    if case .string(let text)? = shown[id]?[field.name] { shown[id]?[field.name] = .string("\(text) (\(place + 1))") }
                }
            }
        }
        return shown
    }

    /// The rows of `aggregate`, by the grouped value's JSON text: the key member and each measure.
    public func rows(_ name: String) -> [String: [String: RefereeValue]] {
        guard let aggregate = model.aggregates.first(where: { $0.name == name }), let entity = model.entity(aggregate.entity) else { return [:] }
        var groups: [String: (key: RefereeValue, members: [Stored])] = [:]
        for (id, stored) in entities[aggregate.entity] ?? [:] where isShown(aggregate.entity, id) {
            guard let key = stored.values[aggregate.groupedBy] else { continue }
            groups["\(key)", default: (key, [])].members.append(stored)
        }
        return groups.mapValues { group in
            let (key, members) = group
            var row: [String: RefereeValue] = [aggregate.key: key]
            for measure in aggregate.measures {
                let type = measure.field.flatMap { field in entity.fields.first { $0.name == field }?.type }
                switch (measure.kind, type) {
                case ("count", nil):
                    row[measure.name] = .integer(members.count)
                case ("count", _):
                    row[measure.name] = .integer(members.filter { $0.values[measure.field!] == .bool(true) }.count)
                case (_, "integer"?):
                    row[measure.name] = .integer(members.reduce(0) { sum, stored in
                        if case .integer(let value)? = stored.values[measure.field!] { sum &+ value } else { sum } })
                default:
                    var total = Decimal(0)
                    for stored in members {
                        let spelt: String? = switch stored.values[measure.field!] {
                        case .string(let text)?: text
                        case .integer(let value)?: String(value)
                        case .number(let value)?: "\(value)"
                        default: nil
                        }
                        if let spelt, let value = Decimal(string: spelt, locale: Locale(identifier: "en_US_POSIX")) { total += value }
                    }
                    row[measure.name] = type == "number" ? .number(Double("\(total)") ?? 0) : .string("\(total)")
                }
            }
            return row
        }
    }
}

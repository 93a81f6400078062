import ChronicleLMDB
import ChronicleSchema
import Foundation
import UUIDText

extension ModelStates {
    /// The shown entities of `entity` whose `field` holds a value from `lower` through `upper`
    /// (an end that is nil is open), sorted by that value (``ChronicleModel/FieldValue/sortsBefore(_:)``),
    /// then by id. An indexed field (declared so, or grouped by an aggregate) is read through
    /// its index, reading only the entities returned, and so is a reference asked for one
    /// parent; any other field, through every entity of its kind. A set is asked for one member
    /// (`lower` and `upper` both its id): the entities whose set holds it, by id, read through
    /// the members' index.
    /// - throws: ``ProjectionError/notInModel(_:)`` for an entity or field the model does not
    ///   declare, or a set asked for anything but one member.
    public func shown(_ entity: String, where field: String, from lower: ChronicleModel.FieldValue?,
                      through upper: ChronicleModel.FieldValue?) throws -> [ChronicleModel.EntityState] {
        let (number, fieldNumber) = try place(of: field, in: entity, asking: lower, through: upper)
        return try read { view in
            let found = try view.entities(number, field: fieldNumber, from: lower, through: upper)
            let shown = try view.shown(found.map(\.stored), number: number)
            // `shown` keeps the order of `found`, leaving out what is not shown.
            var rows: [(state: ChronicleModel.EntityState, value: ChronicleModel.FieldValue)] = []
            rows.reserveCapacity(shown.count)
            var next = shown.startIndex
            for candidate in found where next < shown.endIndex && shown[next].id == candidate.stored.state.id {
                rows.append((shown[next], candidate.value))
                next += 1
            }
            func precedes(_ a: (state: ChronicleModel.EntityState, value: ChronicleModel.FieldValue),
                          _ b: (state: ChronicleModel.EntityState, value: ChronicleModel.FieldValue)) -> Bool {
                ModelStateKeys.resultPrecedes((a.value, a.state.id), (b.value, b.state.id))
            }
            // An index gives them in order already, but for texts cut in its keys.
            if rows.indices.dropFirst().contains(where: { precedes(rows[$0], rows[$0 - 1]) }) { rows.sort(by: precedes) }
            return rows.map(\.state)
        }
    }

    /// The rows of aggregate `name` whose key is from `lower` through `upper` (an end that is
    /// nil is open), sorted by key, as ``ChronicleModel/Snapshot/rows(of:)`` makes them: read
    /// from the stored rows, kept up as entities change, so only the rows returned are read.
    /// One text asked for (`from: day, through: day`) is one lookup.
    /// - throws: ``ProjectionError/notInModel(_:)`` for an aggregate the model does not declare.
    public func rows(of name: String, from lower: ChronicleModel.FieldValue?,
                     through upper: ChronicleModel.FieldValue?) throws -> [ChronicleModel.AggregateRow] {
        guard let number = model.aggregates.firstIndex(where: { $0.name == name }) else {
            throw ProjectionError.notInModel("model '\(model.name)' has no aggregate '\(name)'")
        }
        let shape = rowShapes[number]
        let base = ModelStateKeys.prefix(number)
        return try read { view in
            // Text of one spelling only (ASCII, as days are) has one row key: a single lookup.
            if let lower, lower == upper, case .text(let text) = lower, text.utf8.allSatisfy({ $0 < 0x80 }) {
                guard let value = try view.txn.get(view.tables.rows, key: ModelStateKeys.row(number, lower)) else { return [] }
                let row = try StoredAggregateRow.decode(value, aggregate: name)
                return row.key == lower ? [row.row(shaped: shape)] : []
            }
            // Past a text's range, the first key after it ends the scan, unless it may hold a
            // cut text (those sort among themselves by their hash): then the row's own key
            // decides, as it does for numbers (an integer and a number sort by value, not bytes).
            let end: [UInt8]? = if case .text? = upper { base + ModelStateKeys.sortable(upper!) } else { nil }
            var found: [ChronicleModel.AggregateRow] = []
            try view.scan(view.tables.rows, from: lower.map { base + ModelStateKeys.sortable($0) } ?? base, within: base) { key, value in
                if let end, end.withUnsafeBytes({ KeyOrder.precedes($0, key) }), !ModelStateKeys.mayBeCut(key[base.count...]) {
                    return false
                }
                let row = try StoredAggregateRow.decode(value, aggregate: name)
                if let lower, row.key.sortsBefore(lower) { return true }
                if let upper, upper.sortsBefore(row.key) {
                    if case .text(let text) = row.key, text.utf8.count > ModelStateKeys.longestIndexedText { return true }
                    return false
                }
                found.append(row.row(shaped: shape))
                return true
            }
            if found.indices.dropFirst().contains(where: { found[$0].key.sortsBefore(found[$0 - 1].key) }) {
                found.sort { $0.key.sortsBefore($1.key) }
            }
            return found
        }
    }

    /// The places of `entity` and its `field`, asked for values from `lower` through `upper`.
    /// - throws: ``ProjectionError/notInModel(_:)`` for an entity or field the model does not
    ///   declare, or a set asked for anything but one member (`equals` an id).
    func place(of field: String, in entity: String, asking lower: ChronicleModel.FieldValue?,
               through upper: ChronicleModel.FieldValue?) throws -> (entity: Int, field: Int) {
        guard let number = entityNumbers[entity] else {
            throw ProjectionError.notInModel("model '\(model.name)' has no entity '\(entity)'")
        }
        guard let fieldNumber = model.entities[number].fields.firstIndex(where: { $0.name == field }) else {
            throw ProjectionError.notInModel("entity '\(entity)' of model '\(model.name)' has no field '\(field)'")
        }
        if case .references = model.entities[number].fields[fieldNumber].type {
            guard let lower, lower == upper, case .text(let text) = lower, UUID(uuidString: text) != nil else {
                throw ProjectionError.notInModel("set '\(field)' of entity '\(entity)' is asked for one member: equals an id")
            }
        }
        return (number, fieldNumber)
    }
}

extension StatesView {
    /// Loads the live entities of entity `number` whose field `field` holds a value in the
    /// range, with each one's value.
    mutating func entities(_ number: Int, field: Int, from lower: ChronicleModel.FieldValue?,
                           through upper: ChronicleModel.FieldValue?) throws -> [(stored: StoredEntity, value: ChronicleModel.FieldValue)] {
        let name = states.model.entities[number].fields[field].name
        var found: [(stored: StoredEntity, value: ChronicleModel.FieldValue)] = []
        for id in try candidates(number, field: field, from: lower, through: upper).ids {
            // The index found it by the value's first bytes, or every entity was read: its own value decides.
            guard let stored = try decoded(number, id), !stored.state.isDeleted,
                  let value = stored.state.values[name]?.found(from: lower, through: upper) else { continue }
            found.append((stored, value))
        }
        return found
    }

    /// The ids of entity `number` that may hold a value of field `field` in the range: those
    /// its index lists for the range (by the values' first bytes); for a reference not
    /// indexed asked for one id, the children the `children` table lists under it, and for a
    /// set asked for one member, the holders listed under it (none when the member is not
    /// shown); for any other field, every one. `exact` when the index listed them, none by a cut text: then
    /// each is live, holds a value in the range, and comes in the order of a query's
    /// results (by value, then id), and no entity's own value needs to be read to tell.
    func candidates(_ number: Int, field: Int, from lower: ChronicleModel.FieldValue?,
                    through upper: ChronicleModel.FieldValue?) throws -> (ids: [UUID], exact: Bool) {
        let declared = states.model.entities[number].fields[field]
        let name = declared.name
        var ids: [UUID] = []
        guard states.indexedFields[number].contains(name) else {
            if let parent = Self.parent(askedOf: declared, from: lower, through: upper) {
                // A set shows a member only while the member is shown: one deleted or hidden is in no set's answer.
                if case .references(let target) = declared.type {
                    guard let targetNumber = states.entityNumbers[target], let bytes = try liveBytes(targetNumber, parent),
                          try StoredEntityBytes(entity: target, bytes: bytes).isShown else { return ([], false) }
                }
                // Every entity is in `children` under the parent its reference names, deleted
                // ones too (each is read, and a deleted one left out, as after a scan of them all).
                try scan(tables.children, prefix: ModelStateKeys.childrenPrefix(number, field, parent: parent)) { key, _ in
                    if let id = ModelStateKeys.trailingID(key) { ids.append(id) }
                }
                return (ids, false)
            }
            try scan(tables.live[number], from: [], within: []) { key, _ in
                if let id = ModelStateKeys.trailingID(key) { ids.append(id) }
                return true
            }
            return (ids, false)
        }
        let base = ModelStateKeys.prefix(number) + ModelStateKeys.prefix(field)
        let end = upper.map { base + ModelStateKeys.sortable($0) }
        var exact = true
        try scan(tables.values, from: lower.map { base + ModelStateKeys.sortable($0) } ?? base, within: base) { key, _ in
            guard key.count >= base.count + 16 else { return true }
            let value = UnsafeRawBufferPointer(rebasing: key[..<(key.count - 16)])
            if let end, end.withUnsafeBytes({ KeyOrder.precedes($0, value) }) { return false }
            if let id = ModelStateKeys.trailingID(key) { ids.append(id) }
            if exact, ModelStateKeys.mayBeCut(value[base.count...]) { exact = false }
            return true
        }
        return (ids, exact)
    }

    /// The one parent a query of `field` from `lower` through `upper` asks for: the id both
    /// ends name, when `field` is a reference or a set (then the member asked for); else nil.
    private static func parent(askedOf field: ChronicleModel.Field, from lower: ChronicleModel.FieldValue?,
                               through upper: ChronicleModel.FieldValue?) -> UUID? {
        switch field.type {
        case .reference, .references:
            guard let lower, lower == upper, case .text(let text) = lower else { return nil }
            return UUID(uuidString: text)
        default:
            return nil
        }
    }

    /// Loads the live holders of `stored`'s unique values, which decide how its value is shown.
    mutating func loadCollisions(of stored: StoredEntity, number: Int) throws {
        let entity = states.model.entities[number]
        for (index, field) in entity.fields.enumerated() {
            guard let uniqueness = field.unique, case .text(let text)? = stored.state.values[field.name] else { continue }
            var holders: [UUID] = []
            try scan(tables.unique, prefix: ModelStateKeys.uniquePrefix(number, index, key: uniqueness.key(text))) { key, _ in
                if let id = ModelStateKeys.trailingID(key) { holders.append(id) }
            }
            for holder in holders { _ = try self.stored(entity.name, holder) }
        }
    }
}

extension ChronicleModel.FieldValue {
    /// Whether the value is from `lower` through `upper` (an end that is nil is open), in the
    /// order of ``ChronicleModel/FieldValue/sortsBefore(_:)``.
    func isWithin(_ lower: Self?, _ upper: Self?) -> Bool {
        !(lower.map { sortsBefore($0) } ?? false) && !(upper.map { $0.sortsBefore(self) } ?? false)
    }

    /// The value a query from `lower` through `upper` finds here, which orders its results;
    /// nil when it does not take it. A set's is the member both ends name, when it holds it
    /// (``ModelStates/place(of:in:asking:through:)`` checks a set is asked so); any other
    /// value's is itself, when within them.
    func found(from lower: Self?, through upper: Self?) -> Self? {
        guard case .ids(let members) = self else { return isWithin(lower, upper) ? self : nil }
        // An id spelled as stored (lowercase), as a reference's value is compared.
        guard let lower, case .text(let text) = lower, !text.utf8.contains(where: { (0x41...0x5A).contains($0) }),
              let member = UUID(uuidString: text), members.contains(member) else { return nil }
        return lower
    }
}

extension ModelStateKeys {
    /// The order of a query's results: by the queried field's value, then by id.
    static func resultPrecedes(_ a: (value: ChronicleModel.FieldValue, id: UUID),
                               _ b: (value: ChronicleModel.FieldValue, id: UUID)) -> Bool {
        if a.value.sortsBefore(b.value) { return true }
        if b.value.sortsBefore(a.value) { return false }
        return a.id.sortsBefore(b.id)
    }
}

import ChronicleSchema
import Foundation

extension ModelStates {
    /// The shown entities of `Record.entity`, by id, each read into a `Record`
    /// (``ChronicleRecord``) where it is stored.
    /// - throws: ``ProjectionError/notInModel(_:)`` for an entity the model does not declare;
    ///   ``RecordInitializerError`` with what `Record`'s initializer threw.
    public func shown<Record: ChronicleRecord>(_ type: Record.Type) throws -> [Record] {
        let number = try entityNumber(of: Record.entity)
        return try read { view in
            var candidates: [(id: UUID, bytes: UnsafeRawBufferPointer)] = []
            try view.scan(view.tables.live[number], prefix: []) { key, value in
                if let id = ModelStateKeys.trailingID(key) { candidates.append((id, value)) }
            }
            return try view.records(Record.self, of: candidates, number: number)
        }
    }

    /// Entity `id` of `Record.entity` as ``shown(_:)-(Record.Type)`` reads it; nil when it is not shown.
    public func shown<Record: ChronicleRecord>(_ type: Record.Type, id: UUID) throws -> Record? {
        let number = try entityNumber(of: Record.entity)
        return try read { view in
            guard let bytes = try view.liveBytes(number, id) else { return nil }
            return try view.records(Record.self, of: [(id, bytes)], number: number).first
        }
    }

    /// The shown entities of `Record.entity` whose `field` holds a value from `lower` through
    /// `upper`, in the order of ``shown(_:where:from:through:)``, each read into a `Record`
    /// where it is stored.
    /// - throws: ``ProjectionError/notInModel(_:)`` for an entity or field the model does not
    ///   declare; ``RecordInitializerError`` with what `Record`'s initializer threw.
    public func shown<Record: ChronicleRecord>(_ type: Record.Type, where field: String, from lower: ChronicleModel.FieldValue?,
                                               through upper: ChronicleModel.FieldValue?) throws -> [Record] {
        let (number, fieldNumber) = try place(of: field, in: Record.entity, asking: lower, through: upper)
        let name = model.entities[number].name
        return try read { view in
            let (ids, exact) = try view.candidates(number, field: fieldNumber, from: lower, through: upper)
            if exact {
                // Live, in the range and in order: the index says so.
                var found: [(id: UUID, bytes: UnsafeRawBufferPointer)] = []
                found.reserveCapacity(ids.count)
                for id in ids {
                    guard let bytes = try view.liveBytes(number, id) else {
                        throw ProjectionError.corruptModel("the index of \(name).\(field) lists \(id.uuidString.lowercased()), which is not stored")
                    }
                    found.append((id, bytes))
                }
                return try view.records(Record.self, of: found, number: number)
            }
            var found: [(id: UUID, bytes: UnsafeRawBufferPointer, value: ChronicleModel.FieldValue)] = []
            for id in ids {
                guard let bytes = try view.liveBytes(number, id) else { continue }
                let stored = try StoredEntityBytes(entity: name, bytes: bytes)
                // Cut texts in the index, or every entity read: its own value decides.
                guard let value = try stored.value(at: fieldNumber)?.found(from: lower, through: upper) else { continue }
                found.append((id, bytes, value))
            }
            found.sort { a, b in ModelStateKeys.resultPrecedes((a.value, a.id), (b.value, b.id)) }
            return try view.records(Record.self, of: found.map { ($0.id, $0.bytes) }, number: number)
        }
    }

    private func entityNumber(of entity: String) throws -> Int {
        guard let number = entityNumbers[entity] else {
            throw ProjectionError.notInModel("model '\(model.name)' has no entity '\(entity)'")
        }
        return number
    }
}

extension StatesView {
    /// The shown ones of `candidates` (entities of entity `number`, as stored), in the order
    /// given, each read into a `Record` where it is stored: its flags say whether it is shown,
    /// and its sets' members are judged in place. When a unique value of one is held by another live entity too, the
    /// candidates are decoded and shown as ``shown(_:number:)`` shows them, which tells the
    /// values apart.
    mutating func records<Record: ChronicleRecord>(_ type: Record.Type, of candidates: [(id: UUID, bytes: UnsafeRawBufferPointer)],
                                                   number: Int) throws -> [Record] {
        let entity = states.model.entities[number]
        let uniqueFields = states.uniqueFields[number]
        let sets = states.setFields[number]
        let lookup = ChronicleModel.FieldLookup(entity, names: states.layouts[number])
        var records: [Record] = []
        records.reserveCapacity(candidates.count)
        // The entities looked up are read in turn: each one's bytes are asked for a few ahead,
        // so that they are in the processor's cache when it comes.
        for ahead in candidates.prefix(Self.prefetchDistance) { txn.prefetch(ahead.bytes) }
        for (place, (id, bytes)) in candidates.enumerated() {
            if place + Self.prefetchDistance < candidates.count { txn.prefetch(candidates[place + Self.prefetchDistance].bytes) }
            let stored = try StoredEntityBytes(entity: entity.name, bytes: bytes)
            guard stored.isShown else { continue }
            var fields: ChronicleModel.Fields
            do {
                fields = try ChronicleModel.Fields(stored: stored.values, id: id, lookup: lookup)
            } catch {
                throw ProjectionError.corruptModel("the stored \(entity.name) \(id.uuidString.lowercased()) cannot be read")
            }
            for index in uniqueFields {
                guard let uniqueness = entity.fields[index].unique, case .text(let text)? = fields.value(at: index) else { continue }
                var holders = 0
                try scan(tables.unique, prefix: ModelStateKeys.uniquePrefix(number, index, key: uniqueness.key(text))) { _, _ in holders += 1 }
                if holders > 1 { return try recordsThroughStates(Record.self, of: candidates, number: number) }
            }
            // Most sets hold shown members only, and are read as stored.
            for set in sets {
                var allShown = true
                try fields.forEachStoredMember(ofField: set.index) { member in
                    allShown = try isShown(set.target, member) ?? false
                    return allShown
                }
                guard !allShown else { continue }
                var shown: [UUID] = []
                try fields.forEachStoredMember(ofField: set.index) { member in
                    if try isShown(set.target, member) ?? false { shown.append(member) }
                    return true
                }
                fields.show(shown, inSetField: set.index)
            }
            do { records.append(try Record(fields)) } catch { throw RecordInitializerError(error: error) }
        }
        return records
    }

    /// How many entities ahead of the one read a list's bytes are asked for.
    static let prefetchDistance = 4

    /// `candidates` decoded, shown as ``shown(_:number:)`` shows them and read into records.
    private mutating func recordsThroughStates<Record: ChronicleRecord>(_ type: Record.Type,
                                                                        of candidates: [(id: UUID, bytes: UnsafeRawBufferPointer)],
                                                                        number: Int) throws -> [Record] {
        let entity = states.model.entities[number]
        let decoded = try candidates.map { try StoredEntity.decode($0.bytes, id: $0.id, entity: entity.name, layout: states.layouts[number]) }
        let lookup = ChronicleModel.FieldLookup(entity)
        return try shown(decoded, number: number).map { state in
            do { return try Record(ChronicleModel.Fields(state, lookup: lookup)) } catch { throw RecordInitializerError(error: error) }
        }
    }
}

/// What an app's ``ChronicleRecord`` initializer threw while a read of the states made one,
/// kept apart from the store's own errors so that the app gets it back as it was.
public struct RecordInitializerError: Error {
    /// The initializer's error.
    public let error: any Error
}

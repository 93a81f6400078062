import ChronicleSchema
import Foundation

extension ModelStates {
    /// What merges overruled (``MergeConflict``): first the entities shown under a unique
    /// value other than their own, which every device lists alike (values written apart on two
    /// devices, told apart after the merge with a suffix, `Work (2)`), by that shown value;
    /// then what pulled events overruled of this replica's writes, in the log's order.
    ///
    /// A value shown so is listed as kind `<entity>-renamed` (`tag-renamed`), with the detail
    /// `shown as "Work (2)": a tag named earlier has the same name up to case`.
    public func mergeConflicts() throws -> [MergeConflict] {
        try read { view in
            var found = try view.valuesShownApart()
            try view.scan(view.tables.conflicts, prefix: []) { _, value in found.append(try StoredConflict.decode(value)) }
            return found
        }
    }
}

extension StatesView {
    /// The live entities shown under another value of a unique field than their own, each a
    /// conflict, ordered by entity, field, the shown value's key (its uniqueness's, in its NFC
    /// bytes), then id.
    mutating func valuesShownApart() throws -> [MergeConflict] {
        var listed: [(place: [UInt8], conflict: MergeConflict)] = []
        for (number, entity) in states.model.entities.enumerated() {
            for index in states.uniqueFields[number] {
                let field = entity.fields[index]
                guard let uniqueness = field.unique else { continue }
                // Holders of one key are adjacent: the key without its trailing id is theirs.
                var groups: [[UUID]] = []
                var current: [UInt8] = []
                try scan(tables.unique, prefix: ModelStateKeys.started(number, index, room: 4)) { key, _ in
                    guard let id = ModelStateKeys.trailingID(key) else { return }
                    let shared = Array(key[..<(key.count - 16)])
                    if !groups.isEmpty, shared == current {
                        groups[groups.count - 1].append(id)
                    } else {
                        groups.append([id])
                        current = shared
                    }
                }
                for group in groups where group.count > 1 {
                    let holders = try group.compactMap { try stored(entity.name, $0) }.filter { !$0.state.isDeleted }
                    for state in try shown(holders, number: number) {
                        guard case .text(let shownValue)? = state.values[field.name],
                              let own = holders.first(where: { $0.state.id == state.id }),
                              case .text(let ownValue)? = own.state.values[field.name], shownValue != ownValue else { continue }
                        var place = ModelStateKeys.started(number, index, room: 4)
                        place += ChronicleModel.Uniqueness.composed(uniqueness.key(shownValue)).utf8
                        place += [0, 0]
                        ModelStateKeys.append(state.id, to: &place)
                        listed.append((place, MergeConflict(stream: entity.stream(of: state.id), kind: Self.renamedKind(entity),
                                                            detail: Self.renamedDetail(shownValue, entity: entity, field: field))))
                    }
                }
            }
        }
        return listed.sorted { $0.place.lexicographicallyPrecedes($1.place) }.map(\.conflict)
    }

    /// The kind of a conflict listing an entity of `entity` shown under another value: `tag-renamed`.
    static func renamedKind(_ entity: ChronicleModel.Entity) -> String {
        entity.name.lowercased() + "-renamed"
    }

    /// `shown as "Work (2)": a tag named earlier has the same name up to case`.
    static func renamedDetail(_ shown: String, entity: ChronicleModel.Entity, field: ChronicleModel.Field) -> String {
        let given = field.name == "name" ? "named" : "given its \(field.name)"
        let alike = field.unique == .caseFolded ? " up to case" : ""
        return "shown as \"\(shown)\": a \(entity.name.lowercased()) \(given) earlier has the same \(field.name)\(alike)"
    }
}

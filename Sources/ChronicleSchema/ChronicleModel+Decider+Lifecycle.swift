import Foundation

extension ChronicleModel.Decider.Context {
    // MARK: Delete and restore

    /// Deletes the entity and releases its unique values. Its children by a reference with
    /// ``ChronicleModel/ParentDeletion``: deleted in the same batch (`deleteWithParent`), left
    /// hidden (`hideWithParent`), or the deletion refused while one is live
    /// (`refuseParentDeletion`); a child created meanwhile by another process fails the batch.
    mutating func delete(into decision: inout Decision) throws {
        let state = try live()
        decision.expectedVersions[stream] = try reading.version(of: stream)
        append(entity.events.deleted, data: [:], into: &decision)
        release(state, of: entity, into: &decision)
        for child in model.entities {
            for field in child.fields {
                guard case .reference(let target) = field.type, target == entity.name, let rule = field.onParentDeletion else { continue }
                let key = ChronicleModel.Decider.childrenKey(parent: entity, id.uuidString.lowercased(), child: child)
                let live = try reading.children(of: child.name, field: field.name, parent: id).filter { !$0.isDeleted }
                    .sorted { $0.id.uuidString < $1.id.uuidString }
                switch rule {
                case .hideWithParent:
                    continue
                case .refuseParentDeletion:
                    guard live.isEmpty else {
                        throw Problem("\(named) has \(live.count) live \(child.name.lowercased())\(live.count == 1 ? "" : "s"): delete them first",
                                      reason: .hasLiveChildren(entity: child.name, count: live.count))
                    }
                case .deleteWithParent:
                    for kept in live {
                        let childStream = ChronicleModel.Decider.stream(child, kept.id)
                        guard decision.expectedVersions[childStream] == nil else { continue }
                        decision.expectedVersions[childStream] = try reading.version(of: childStream)
                        append(child.events.deleted, stream: childStream, data: [:], into: &decision)
                        release(kept, of: child, into: &decision)
                    }
                }
                decision.conditions.append(.unchanged(key, since: reading.position))
            }
        }
    }

    /// Brings the deleted entity back as it was: its unique values must still be free, and its
    /// parents shown.
    mutating func restore(into decision: inout Decision) throws {
        guard let state = try reading.state(of: entity.name, id: id) else {
            throw Problem("unknown \(named)", reason: .unknown(entity: entity.name, id: id))
        }
        guard state.isDeleted else { throw Problem("\(named) is not deleted", reason: .notDeleted(entity: entity.name, id: id)) }
        for field in entity.fields {
            if field.onParentDeletion != nil, case .reference(let target) = field.type, let parent = state.reference(field.name),
               try reading.state(of: target, id: parent) != nil {
                try requireShown(target, parent)
            }
            guard let uniqueness = field.unique, case .text(let text)? = state.values[field.name] else { continue }
            try claim(field, uniqueness.key(text), shown: text, into: &decision)
        }
        touchParents(of: state.values.dictionary, into: &decision)
        decision.expectedVersions[stream] = try reading.version(of: stream)
        append(entity.events.restored, data: [:], into: &decision)
    }

    /// Releases the unique values `state` holds.
    func release(_ state: ChronicleModel.EntityState, of entity: ChronicleModel.Entity, into decision: inout Decision) {
        for field in entity.fields {
            guard let uniqueness = field.unique, case .text(let text)? = state.values[field.name] else { continue }
            decision.conditions.append(.release(ChronicleModel.Decider.uniqueKey(entity, field, uniqueness.key(text)), by: ChronicleModel.Decider.stream(entity, state.id)))
        }
    }

    // MARK: Sets

    /// Adds and removes members of set `name`, one event each (a set without events of its own
    /// is written whole by an update). `checked`: the members to add were checked already.
    mutating func change(_ name: String, adding: [UUID], removing: [UUID], into decision: inout Decision, checked: Bool = false) throws {
        let state = try live()
        let field = try declared(name)
        guard case .references(let target) = field.type else { throw Problem("\(name) is not a set") }
        guard let events = field.setBy else {
            var members = Set(state.members(of: name))
            members.formUnion(adding)
            members.subtract(removing)
            return try update([name: .ids(ChronicleModel.sortedIDs(members))], into: &decision)
        }
        let current = Set(state.members(of: name))
        for member in adding {
            guard !current.contains(member) else {
                throw Problem("\(named) already has \(name) \(member.uuidString.lowercased())", reason: .alreadyMember(field: name, member: member))
            }
            if !checked { try requireShown(target, member) }
        }
        for member in removing {
            // A member that is not shown is not there to remove (the set shows shown members only).
            if !checked { try requireShown(target, member) }
            guard current.contains(member) else {
                throw Problem("\(named) does not have \(name) \(member.uuidString.lowercased())", reason: .notMember(field: name, member: member))
            }
        }
        decision.expectedVersions[stream] = try reading.version(of: stream)
        try requireUnchanged(adding, of: field, into: &decision)
        let key = field.member ?? "id"
        for member in adding { append(events.on, data: [key: .text(member.uuidString.lowercased())], into: &decision) }
        for member in removing { append(events.off, data: [key: .text(member.uuidString.lowercased())], into: &decision) }
    }
}

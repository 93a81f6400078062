import Foundation

// The `overwritten` and `deleted` conflicts of docs/PROTOCOL.md ("Conflicts"), for one device:
// what a merge overruled of that device's changes, in the order its log holds the pulled
// events that overruled them. Unlike the read models, this depends on when the device pulled:
// only its own changes made before a pulled event came count against that event.

/// One `overwritten` or `deleted` conflict, `detail` as docs/PROTOCOL.md spells it.
public struct RefereeConflict: Sendable, Hashable, CustomStringConvertible {
    public var stream: String
    public var kind: String
    public var detail: String
    public init(stream: String, kind: String, detail: String) {
        self.stream = stream; self.kind = kind; self.detail = detail
    }
    public var description: String { "\(stream) \(kind): \(detail)" }
}

extension RefereeEvent {
    /// The fields the event changes, by their JSON names, in the order the docs list them.
    /// Creations, deletions and restorations change none.
    var changedFields: [String] {
        let data = self.data
        func has(_ key: String) -> Bool { data[key]?.string != nil }
        switch type {
        case "UserUpdated": return ["name", "age"].filter { $0 == "age" ? data["age"]?.integer != nil : has($0) }
        case "TodoUpdated": return ["title", "deadline", "memo"].filter(has)
        case "TagUpdated": return ["name", "color"].filter(has)
        case "TodoCompleted", "TodoReopened": return ["isCompleted"]
        case "TodoTagged", "TodoUntagged": return data["tagId"]?.string.map { ["tag \($0)"] } ?? []
        default: return []
        }
    }

    var isDeletion: Bool { ["UserDeleted", "TodoDeleted", "TagDeleted"].contains(type) }
    var isRestoration: Bool { ["UserRestored", "TodoRestored", "TagRestored"].contains(type) }
}

extension RefereeState {
    /// The `overwritten` and `deleted` conflicts `device` lists, oldest first.
    ///
    /// - Parameters:
    ///   - device: the device's id (its events' `origin`).
    ///   - log: the device's log in its own order: its own events as it wrote them and pulled
    ///     events as they came.
    ///   - serverOrder: the server's events in its order (the merge's order).
    public static func conflicts(of device: String, log: [RefereeEvent], serverOrder: [RefereeEvent]) -> [RefereeConflict] {
        // The merge's order: by server position; an event the server does not hold, after all.
        var rank: [String: Int] = [:]
        for (index, event) in serverOrder.enumerated() where rank[event.id] == nil { rank[event.id] = index }
        func rankOf(_ event: RefereeEvent) -> Int { rank[event.id] ?? .max }

        // Folded in the merge's order: per event, whether its entity was deleted just before it,
        // and which event's write each field of the entity held then. A change that meets a
        // deletion changes nothing, so it never becomes a field's writer; a restoration brings
        // back the entity as at its deletion, writers included.
        var deletedBefore: [String: Bool] = [:]
        var writersBefore: [String: [String: RefereeEvent]] = [:]
        var deleted: [String: Bool] = [:]
        var writers: [String: [String: RefereeEvent]] = [:]
        for event in serverOrder {
            let stream = event.stream
            deletedBefore[event.id] = deleted[stream] ?? false
            writersBefore[event.id] = writers[stream] ?? [:]
            if event.isDeletion { deleted[stream] = true }
            if event.isRestoration { deleted[stream] = false }
            if !(deleted[stream] ?? false) {
                for field in event.changedFields { writers[stream, default: [:]][field] = event }
            }
        }

        var found: [RefereeConflict] = []
        var earlierHere: [String: [RefereeEvent]] = [:]   // per stream, this log's events so far
        for pulled in log {
            defer { earlierHere[pulled.stream, default: []].append(pulled) }
            let own = (earlierHere[pulled.stream] ?? []).filter { $0.origin == device }
            guard pulled.origin != device, rank[pulled.id] != nil, !own.isEmpty,
                  deletedBefore[pulled.id] != true else { continue }
            let place = rankOf(pulled)
            if pulled.isDeletion {
                let unseen = own.filter {
                    !$0.changedFields.isEmpty && (rankOf($0) > place || $0.timestamp >= pulled.timestamp)
                }.count
                if unseen > 0 {
                    found.append(RefereeConflict(
                        stream: pulled.stream, kind: "deleted",
                        detail: "\(unseen) change\(unseen == 1 ? "" : "s") made here went with its deletion on device \(pulled.origin)"))
                }
            }
            // A field that an own change placed after this event holds is not overwritten.
            let held = Set(own.filter { rankOf($0) > place }.flatMap(\.changedFields))
            for field in pulled.changedFields where !held.contains(field) {
                guard let writer = writersBefore[pulled.id]?[field], writer.origin == device,
                      writer.timestamp >= pulled.timestamp else { continue }
                found.append(RefereeConflict(
                    stream: pulled.stream, kind: "overwritten",
                    detail: "\(field) written here at \(writer.timestamp) lost to an earlier write from device \(pulled.origin)"))
            }
        }
        return found
    }
}

import ChronicleSchema
import ChronicleLog
import Foundation

/// What a pulled event of a declared model overrules of this replica's writes, listed as
/// ``MergeConflict``s (never an error: every event stays in the log), as the todo app's
/// merge lists them:
///
/// - `overwritten`: a field (or a set's member) this replica wrote last in the merge's order
///   is overwritten by a pulled write made earlier by its device's clock: the other device
///   could not have seen this one's.
/// - `deleted`: the pulled event deletes the entity while writes of this replica it could not
///   have seen (ranked after it, or made later by the clock) were in it.
enum ModelConflicts {
    /// The conflicts of pulled `event` (`recorded`, at server position `server`), given the
    /// events of its stream before it here (`before`, in log order) and their server positions.
    static func of(_ event: ChronicleModel.Event, _ recorded: RecordedEvent, server: UInt64, before: [RecordedEvent],
                   upstream: [UInt64: UInt64], deviceID: String, reader: ChronicleModel.EventReader) -> [MergeConflict] {
        func read(_ recorded: RecordedEvent) -> ChronicleModel.Event? {
            try? reader.read(type: recorded.type, stream: recorded.stream, data: recorded.data, schemaVersion: Int(recorded.schemaVersion))
        }
        let own = before.filter { $0.origin == deviceID }
        guard !own.isEmpty else { return [] }
        // The entity just before the pulled event in the merge's order: deleted or not, and the
        // event whose write each field (or member) holds.
        var deleted = false
        var writers: [ChronicleModel.FieldWrite: RecordedEvent] = [:]
        let ranked = before.compactMap { event in upstream[event.position].flatMap { $0 < server ? ($0, event) : nil } }
            .sorted { $0.0 < $1.0 }
        for (_, earlier) in ranked {
            guard let decoded = read(earlier) else { continue }
            switch decoded.change {
            // A creation changes no field (docs/PROTOCOL.md): a pulled write over a created
            // value overrules nothing, whichever clock is ahead.
            case .created: deleted = false
            case .deleted: deleted = true
            case .restored: deleted = false
            default: if !deleted { for write in decoded.writes { writers[write] = earlier } }
            }
        }
        var held = Set<ChronicleModel.FieldWrite>()   // written by own events that rank after the pulled one
        var unseen = 0                                  // own writes the pulled event's device cannot have seen
        for event in own {
            guard let decoded = read(event), !decoded.writes.isEmpty else { continue }
            let ranksAfter = (upstream[event.position] ?? .max) > server
            if ranksAfter { held.formUnion(decoded.writes) }
            if ranksAfter || event.timestampMilliseconds >= recorded.timestampMilliseconds { unseen += 1 }
        }
        if case .deleted = event.change {
            guard unseen > 0, !deleted else { return [] }
            return [MergeConflict(stream: recorded.stream, kind: "deleted",
                                  detail: "\(unseen) change\(unseen == 1 ? "" : "s") made here went with its deletion on device \(recorded.origin)")]
        }
        guard !deleted else { return [] }
        // One event's, in the order its entity declares its fields (a set's members in their order).
        let declared = reader.model.entity(named: event.entity)
        let places = Dictionary(uniqueKeysWithValues: (declared?.fields ?? []).enumerated().map { ($1.name, $0) })
        let writes = event.writes.enumerated().sorted { a, b in
            (places[a.element.field] ?? .max, a.offset) < (places[b.element.field] ?? .max, b.offset)
        }.map(\.element)
        return writes.compactMap { write in
            guard !held.contains(write), let last = writers[write], last.origin == deviceID,
                  last.timestampMilliseconds >= recorded.timestampMilliseconds else { return nil }
            let what = declared.map(write.label(in:)) ?? write.field
            return MergeConflict(stream: recorded.stream, kind: "overwritten",
                                 detail: "\(what) written here at \(Timestamp.format(milliseconds: last.timestampMilliseconds)) "
                                     + "lost to an earlier write from device \(recorded.origin)")
        }
    }
}

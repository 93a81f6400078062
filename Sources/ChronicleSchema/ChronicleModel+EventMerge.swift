import Foundation
import UUIDText

extension ChronicleModel.Event {
    /// The event without the writes in `held` (writes that later ones hold in the merge's
    /// order); nil when it writes nothing else. Creations, deletions and restorations write
    /// nothing that can be held: they are kept whole.
    ///
    /// ```swift
    /// let update = try reader.read(type: "TodoUpdated", stream: stream, data: Data(#"{"title":"A","memo":"B"}"#.utf8))
    /// update.without([ChronicleModel.FieldWrite(field: "title")])?.change   // .updated(["memo": .text("B")])
    /// ```
    public func without(_ held: Set<ChronicleModel.FieldWrite>) -> ChronicleModel.Event? {
        guard !held.isEmpty else { return self }
        var kept = self
        switch change {
        case .created, .deleted, .restored:
            return self
        case .updated(var values):
            for (field, _) in values where held.contains(ChronicleModel.FieldWrite(field: field)) { values[field] = nil }
            guard !values.isEmpty else { return nil }
            kept.change = .updated(values)
            return kept
        case .set, .added, .removed:
            return writes.allSatisfy(held.contains) ? nil : self
        }
    }
}

extension ChronicleModel.FieldWrite {
    /// How a conflict names the write: the field's name, or, for one member of a set, the
    /// member's name without its `Id` (`tagId`: `tag 0190…`) and the member's id.
    public func label(in entity: ChronicleModel.Entity) -> String {
        guard let member else { return field }
        let name = entity.fields.first { $0.name == field }?.member.map { $0.hasSuffix("Id") ? String($0.dropLast(2)) : $0 }
        return "\(name ?? "\(field) member") \(member.lowercasedString)"
    }
}

extension ChronicleModel.Entity {
    /// The name of the stream of entity `id`: `todo-<lowercase uuid>`.
    public func stream(of id: UUID) -> String {
        stream + "-" + id.lowercasedString
    }
}

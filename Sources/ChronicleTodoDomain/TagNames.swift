import ChronicleSchema
import Foundation

/// How live tags whose names are equal up to case are shown: tags created (or renamed)
/// apart, on replicas that had not seen each other, may end up with one name once merged.
/// Both keep their ids; the first in the merge's order keeps its name, the next is shown
/// with ` (2)` appended, then ` (3)`, …, so live names shown stay unique.
public enum TagNames {
    /// The place of each tag of one group (names that fold alike) in the order of the writes
    /// that gave their names: 1 for the first, 2 for the next, …
    ///
    /// ```swift
    /// TagNames.shownOrder([(a, rank(3)), (b, rank(9))])   // [a: 1, b: 2]
    /// ```
    public static func shownOrder(_ group: [(id: UUID, rank: MergeRank)]) -> [UUID: UInt16] {
        var order: [UUID: UInt16] = [:]
        for (index, tag) in group.sorted(by: { $0.rank < $1.rank }).enumerated() {
            order[tag.id] = UInt16(clamping: index + 1)
        }
        return order
    }

    /// The name shown for a tag named `name` at place `order` of its group: `"work (2)"`.
    public static func shownName(_ name: String, order: Int) -> String {
        ChronicleModel.Uniqueness.shown(name, place: order)
    }

    /// ``shownOrder(_:)`` applied to the names.
    public static func shown(_ group: [(id: UUID, name: String, rank: MergeRank)]) -> [UUID: String] {
        let order = shownOrder(group.map { ($0.id, $0.rank) })
        var shown: [UUID: String] = [:]
        for tag in group { shown[tag.id] = shownName(tag.name, order: Int(order[tag.id] ?? 1)) }
        return shown
    }

    /// The kind listed in a store's conflicts for a tag shown under a changed name.
    public static let conflictKind = "tag-renamed"
}

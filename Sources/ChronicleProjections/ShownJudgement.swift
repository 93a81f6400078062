import ChronicleSchema
import Foundation

/// Whether stored entities are shown (``ChronicleModel/ShowingRule``), each parent met judged
/// once where the rule ``ChronicleModel/ShowingRule/isAcyclic`` (many children, few parents:
/// a todo's user); elsewhere each question walks its chain, as the rule asks.
///
/// Thread rules: one judgement's, on one thread.
final class ShownJudgement {
    typealias Key = ModelStatesBatch.Key

    private let rule: ChronicleModel.ShowingRule
    /// Whether each parent met is shown (nil: not there).
    private var parents: [Key: Bool?] = [:]

    init(_ rule: ChronicleModel.ShowingRule) {
        self.rule = rule
    }

    /// Whether `state`, entity `key`, is shown, the states of its parents read by `state`.
    func isShown(_ state: ChronicleModel.EntityState, _ key: Key,
                 parent: (_ key: Key) throws -> ChronicleModel.EntityState?) rethrows -> Bool {
        guard rule.isAcyclic else {
            return try rule.isShown(state, place: key.entity) { place, id in try parent(Key(entity: place, id: id)) }
        }
        return try rule.isShown(state, place: key.entity) { place, id in
            let parentKey = Key(entity: place, id: id)
            if let known = parents[parentKey] { return known }
            let shown = try parent(parentKey).map { try isShown($0, parentKey, parent: parent) }
            parents[parentKey] = .some(shown)
            return shown
        }
    }
}

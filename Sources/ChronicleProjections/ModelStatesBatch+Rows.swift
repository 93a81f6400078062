import ChronicleSchema
import Foundation
import ChronicleLMDB

extension ModelStatesBatch {
    /// Moves the shares of the aggregates' rows: every entity of `changes` (those the batch
    /// touched, and the children their deletion or restoration hides or shows, down the
    /// chain) leaves the row it counted in (if it was shown) and joins the one it counts in
    /// now (if it is shown); so a row always counts the shown entities as
    /// ``ChronicleModel/Snapshot/rows(of:)`` counts them.
    func moveShares(_ changes: [ShowingChange]) throws {
        let aggregates = owner.model.aggregates
        guard !aggregates.isEmpty else { return }
        var rows = RowChanges(txn: txn, database: tables.rows, model: owner.model)
        for change in changes {
            // Shown neither before nor after: in no row.
            guard change.shownBefore || change.shownAfter else { continue }
            for (number, plan) in owner.sharePlans[change.key.entity] {
                // Shown both times with the same values: the same share of the same row.
                if change.shownBefore, change.shownAfter, let before = change.before, let after = change.after,
                   plan.readsTheSame(in: before, after) { continue }
                let old = change.shownBefore ? change.before.flatMap { StoredAggregateRow(share: $0, planned: plan) } : nil
                let new = change.shownAfter ? change.after.flatMap { StoredAggregateRow(share: $0, planned: plan) } : nil
                guard old != new else { continue }
                if let old { try rows.add(old, sign: -1, to: number) }
                if let new { try rows.add(new, sign: 1, to: number) }
            }
        }
        try rows.write()
    }
}

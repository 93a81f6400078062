@_spi(Operator) import Chronicle
import Foundation

// MARK: - The model's generic fold beside the stored models

extension SyncCluster {
    /// What `device` shows by its stored models (the todo app's own projections) and by the
    /// generic fold of its log under the todo app's declared model (``ModelReplay``, what
    /// `chronicle list` reads), where they differ. Compared as sets: the generic lists are
    /// sorted by id, the stored ones by each entity's key.
    static func modelReplayProblems(_ device: Device) async throws -> [String] {
        try await device.store.refresh()
        let stored = try await ModelRendering(device.store)
        let model = TodoAppModel.model
        let replayed = try ModelReplay.snapshot(log: device.store.log, model: model)
        var problems: [String] = []
        if replayed.unread > 0 { problems.append("device \(device.name): the model cannot read \(replayed.unread) events: \(replayed.firstProblem ?? "")") }
        let dailyStat = model.aggregates[0]
        for (list, mine, generic) in [
            ("users", stored.users, replayed.snapshot.shown("User").map(model.json(of:))),
            ("todos", stored.todos, replayed.snapshot.shown("Todo").map(model.json(of:))),
            ("tags", stored.tags, replayed.snapshot.shown("Tag").map(model.json(of:))),
            ("stats", stored.stats, (replayed.snapshot.rows(of: "DailyStat") ?? []).map { model.json(of: $0, in: dailyStat) }),
        ] where mine.sorted() != generic.sorted() {
            let onlyStored = mine.filter { !generic.contains($0) }, onlyGeneric = generic.filter { !mine.contains($0) }
            problems.append("device \(device.name)'s \(list): only the stored models show \(onlyStored.joined(separator: ",")); "
                            + "only the model's fold shows \(onlyGeneric.joined(separator: ","))")
        }
        return problems
    }
}

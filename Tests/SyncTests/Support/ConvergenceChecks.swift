@_spi(Operator) import Chronicle
import ChronicleTodoDomain
import ChronicleLog
import Foundation

// MARK: - Final-state checks

extension SyncCluster {
    /// What differs between the devices (and a fresh device that only pulled), or is wrong
    /// with their logs.
    func convergenceProblems() async throws -> [String] {
        var problems: [String] = []
        let fresh = try openDevice("fresh")
        extras.append(fresh)
        let pull = try await fresh.engine.pull()
        if !pull.isComplete { problems.append("the fresh device's pull did not complete: \(ConvergenceRun.describe(pull.outcome))") }

        let all = devices + [fresh]
        var renderings: [(name: String, rendering: ModelRendering)] = []
        for device in all {
            try await device.store.refresh()
            renderings.append((device.name, try await ModelRendering(device.store)))
        }
        let reference = renderings[0]
        for other in renderings.dropFirst() {
            problems += reference.rendering.differences(from: other.rendering, names: (reference.name, other.name))
        }

        let serverIDs = try await http.pullAll(token: Self.token).map(\.id)
        let serverSet = Set(serverIDs)
        if serverSet.count != serverIDs.count {
            problems.append("the server holds \(serverIDs.count - serverSet.count) events twice")
        }
        for device in all {
            let report = try device.store.log.verify()
            if !report.isIntact {
                problems.append("device \(device.name)'s log fails verify: \(report.problem.map(String.init(describing:)) ?? "") \(report.otherProblems)")
            }
            let ids = try Self.eventIDs(device.store.log)
            let set = Set(ids)
            if set.count != ids.count {
                let twice = Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys
                problems.append("device \(device.name)'s log holds \(ids.count - set.count) events more than once: \(twice.map(\.uuidString).sorted().prefix(5))")
            }
            let missing = serverSet.subtracting(set), extra = set.subtracting(serverSet)
            if !missing.isEmpty || !extra.isEmpty {
                problems.append("device \(device.name)'s log lacks \(missing.count) of the server's \(serverSet.count) events and holds \(extra.count) the server does not")
            }
        }
        return problems
    }

    /// The merge rules' promises, on what each device (and the fresh one) shows once quiet:
    /// no live todo names a user that is not live, a todo shows only live tags, no two live
    /// tags share a name regardless of case (a collision is shown renamed, "work (2)"), and
    /// the stats count the live todos per day.
    func invariantProblems() async throws -> [String] {
        var problems: [String] = []
        for device in devices + extras {
            let store = device.store
            try await store.refresh()
            let users = Set(try await store.users().map(\.id))
            let tags = try await store.tags()
            let tagIDs = Set(tags.map(\.id))
            let todos = try await store.todos()
            for todo in todos {
                if let owner = todo.userId, !users.contains(owner) {
                    problems.append("device \(device.name) shows live todo \(ModelRendering.todo(todo)) of user \(owner.uuidString.lowercased()), who is not live")
                }
                if !Set(todo.tags).isSubset(of: tagIDs) {
                    problems.append("device \(device.name) shows todo \(ModelRendering.todo(todo)) with a tag that is not live")
                }
            }
            let names = Dictionary(grouping: tags, by: { ChronicleTodoDomain.Tag.foldedName($0.name) }).filter { $0.value.count > 1 }
            for (_, same) in names.sorted(by: { $0.key < $1.key }) {
                problems.append("device \(device.name) shows live tags with the same name: \(ModelRendering.tags(same))")
            }
            var counted: [CalendarDay: (total: Int, completed: Int)] = [:]
            for todo in todos {
                counted[todo.deadline, default: (0, 0)].total += 1
                if todo.isCompleted { counted[todo.deadline, default: (0, 0)].completed += 1 }
            }
            let expected = counted.map { DailyStat(date: $0.key, total: $0.value.total, completed: $0.value.completed) }
                .sorted { $0.date < $1.date }
            let stats = try await store.stats()
            if stats != expected {
                problems.append("device \(device.name)'s stats \(stats.map(ModelRendering.stat)) are not its live todos counted per day \(expected.map(ModelRendering.stat))")
            }
        }
        return problems
    }

    static func eventIDs(_ log: EventLog) throws -> [UUID] {
        var ids: [UUID] = []
        var after: UInt64 = 0
        while true {
            let events = try log.read(after: after, limit: 1000)
            guard let last = events.last else { return ids }
            ids += events.map(\.id)
            after = last.position
        }
    }
}

import ArgumentParser
import ChronicleProjections
import ChronicleLog
import ChronicleSchema
import ChronicleTodoModel
import Foundation
import Synchronization

/// `chronicle rebuild`: folds the log again into fresh stored entities and swaps them in.
struct RebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Rebuild the read model from the log; readers keep the old one until the atomic swap.",
        discussion: "Progress (events done/total, events/s, time left) goes to stderr, the summary to stdout. "
            + "An interrupted rebuild leaves the old read model in place; run it again.")

    @OptionGroup var store: StoreOptions
    @Option(help: "users, todos, daily-stats, tags, conflicts (the todo app's: one read model holds them all, so each rebuilds it), entities (the read model of any app's model, named by the model) or all.")
    var projection = "all"
    @Flag(help: "Print the summary as JSON.") var json = false

    func validate() throws {
        _ = try projections()
    }

    /// The todo app's names asked for; nil: `entities`.
    private func projections() throws -> [TodoAppReadModel]? {
        if projection == "all" { return TodoAppReadModel.allCases }
        if projection == "entities" { return nil }
        guard let name = TodoAppReadModel(rawValue: projection) else {
            throw ValidationError("unknown projection '\(projection)': expected users, todos, daily-stats, tags, conflicts, entities or all")
        }
        return [name]
    }

    func run() async throws {
        let asked = try projections()
        let log = try StoreAccess.openLog(store)
        let model = try RecordedModel(log: log).model
        guard let asked, model == TodoAppModel.model else {
            if let asked, asked != TodoAppReadModel.allCases {
                throw RefusedInput("the store's model '\(model.name)' has no projection '\(projection)': rebuild 'entities' or 'all'")
            }
            try reportEntities(try rebuild(model: model, log: log).rebuilt)
            return
        }
        let (rebuilt, states) = try rebuild(model: model, log: log)
        let counts = try Dictionary(uniqueKeysWithValues: asked.map { ($0, try $0.count(in: states)) })
        if json {
            let entries = Dictionary(uniqueKeysWithValues: counts.map { ($0.rawValue, $1) })
            let object: [String: Any] = [
                "projections": asked.map(\.rawValue), "position": rebuilt.position,
                "events": rebuilt.position, "skipped": rebuilt.skipped,
                "seconds": (rebuilt.seconds * 1000).rounded() / 1000, "eventsPerSecond": rebuilt.eventsPerSecond.rounded(),
                "entries": entries, "entities": rebuilt.json,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            CLIOutput.line(String(decoding: data, as: UTF8.self))
            return
        }
        CLIOutput.line("rebuilt \(asked.map(\.rawValue).joined(separator: ", ")) from \(counted(rebuilt.position, "event")) "
                       + "in \(String(format: "%.2f", rebuilt.seconds)) s (\(grouped(UInt64(rebuilt.eventsPerSecond))) events/s); "
                       + "the models are at position \(rebuilt.position)")
        let sizes = asked.compactMap { name -> String? in
            counts[name].map { count in
                switch name {
                case .users: counted(UInt64(count), "user")
                case .todos: counted(UInt64(count), "todo")
                case .dailyStats: counted(UInt64(count), "day") + " with todos"
                case .tags: counted(UInt64(count), "tag")
                case .conflicts: counted(UInt64(count), "conflict")
                }
            }
        }
        CLIOutput.line(sizes.joined(separator: ", "))
        if rebuilt.skipped > 0 {
            CLIOutput.line("\(counted(rebuilt.skipped, "event")) skipped (unknown type or unreadable data)")
        }
    }

    /// What a rebuild of the stored entities came to.
    private struct EntitiesRebuilt {
        var model: String
        var version: Int
        var position: UInt64
        var skipped: UInt64
        var seconds: Double
        var eventsPerSecond: Double

        var json: [String: Any] {
            ["model": model, "version": version, "position": position, "seconds": (seconds * 1000).rounded() / 1000]
        }
    }

    /// Rebuilds `entities/`, the stored entities of the model the store records, blue/green:
    /// readers in other processes keep the old ones until the swap. Progress on stderr.
    private func rebuild(model: ChronicleModel, log: EventLog) throws -> (rebuilt: EntitiesRebuilt, states: ModelStates) {
        let states = try ModelStates(path: store.path + "/entities", model: model, log: log, noSync: log.options.noSync)
        let head = try log.head()
        let bar = ProgressBar()
        let started = ContinuousClock.now
        let position = try states.rebuild { position in bar.show(RebuildProgress(done: min(position, head), total: head, since: started)) }
        bar.finish()
        let done = RebuildProgress(done: position, total: position, since: started)
        let seconds = Double(done.elapsed.components.seconds) + Double(done.elapsed.components.attoseconds) / 1e18
        return (EntitiesRebuilt(model: model.name, version: model.version, position: position, skipped: UInt64(try states.unread().count),
                                seconds: seconds, eventsPerSecond: done.eventsPerSecond), states)
    }

    private func reportEntities(_ rebuilt: EntitiesRebuilt) throws {
        if json {
            let data = try JSONSerialization.data(withJSONObject: ["entities": rebuilt.json], options: [.sortedKeys])
            CLIOutput.line(String(decoding: data, as: UTF8.self))
            return
        }
        CLIOutput.line("rebuilt the entities of model '\(rebuilt.model)' version \(rebuilt.version) in "
                       + "\(String(format: "%.2f", rebuilt.seconds)) s; they are at position \(rebuilt.position)")
    }
}

/// The names the todo app's read models had, which `rebuild --projection` keeps: one read
/// model (the stored entities) holds them all now, and the summary counts what each shows.
private enum TodoAppReadModel: String, CaseIterable {
    case users, todos, dailyStats = "daily-stats", tags, conflicts

    /// How many users, todos, days with todos, tags or conflicts `states` show.
    func count(in states: ModelStates) throws -> Int {
        switch self {
        case .users: try states.shown("User").count
        case .todos: try states.shown("Todo").count
        case .dailyStats: try states.rows(of: "DailyStat", from: nil, through: nil).count
        case .tags: try states.shown("Tag").count
        case .conflicts: try states.mergeConflicts().count
        }
    }
}

/// The stderr progress of `rebuild` (a ``ProgressLine``, so only on a terminal), with the
/// time left.
private final class ProgressBar: Sendable {
    private let drawn = Mutex<ContinuousClock.Instant?>(nil)

    func show(_ progress: RebuildProgress) {
        guard ProgressLine.stderrIsTerminal else { return }
        let now = ContinuousClock.now
        let draw = drawn.withLock { last -> Bool in
            if let previous = last, now - previous < .milliseconds(100), progress.done < progress.total { return false }
            last = now
            return true
        }
        if draw {
            CLIOutput.progress(ProgressLine.render("rebuild", unit: "events", done: progress.done, total: progress.total,
                                                   perSecond: progress.eventsPerSecond, remaining: progress.remaining))
        }
    }

    func finish() {
        if drawn.withLock({ $0 != nil }) { CLIOutput.note("") }
    }
}

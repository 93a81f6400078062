import ArgumentParser
import ChronicleProjections
import ChronicleLog
import Foundation
import Synchronization

/// `chronicle rebuild`: replays the log into fresh read models and swaps them in.
struct RebuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Rebuild read models from the log; readers keep the old models until the atomic swap.",
        discussion: "Progress (events done/total, events/s, time left) goes to stderr, the summary to stdout. "
            + "An interrupted rebuild leaves the old models in place; run it again.")

    @OptionGroup var store: StoreOptions
    @Option(help: "users, todos, daily-stats, tags, conflicts, entities (a declared model's stored entities) or all.")
    var projection = "all"
    @Flag(help: "Print the summary as JSON.") var json = false
    @Option(help: ArgumentHelp("The most events per write transaction (by default, transactions end at the entities they hold).",
                               visibility: .hidden)) var batchSize: Int?

    func validate() throws {
        _ = try projections()
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
    }

    private func projections() throws -> [ProjectionName] {
        if projection == "all" { return ProjectionName.allCases }
        if projection == "entities" { return [] }
        guard let name = ProjectionName(rawValue: projection) else {
            throw ValidationError("unknown projection '\(projection)': expected users, todos, daily-stats, tags, conflicts, entities or all")
        }
        return [name]
    }

    /// Whether the stored entities are rebuilt: asked for, or, with `all`, the store has them.
    private var rebuildsEntities: Bool {
        projection == "entities" || (projection == "all" && FileManager.default.fileExists(atPath: store.path + "/entities/data.mdb"))
    }

    func run() async throws {
        let names = try projections()
        if names.isEmpty {
            let log = try StoreAccess.openLog(store)
            defer { log.close() }
            try reportEntities(try rebuildEntities(log), alone: true)
            return
        }
        let (log, models, _) = try StoreAccess.openModels(store)
        let bar = ProgressBar(pauseAfter: ProcessInfo.processInfo.environment["CHRONICLE_REBUILD_PAUSE_AFTER"].flatMap { UInt64($0) })
        let summary = try await Rebuild.run(log: log, models: models, projections: names, batchSize: batchSize) { progress in
            bar.show(progress)
        }
        bar.finish()
        let entities = rebuildsEntities ? try rebuildEntities(log) : nil
        let seconds = Double(summary.elapsed.components.seconds) + Double(summary.elapsed.components.attoseconds) / 1e18
        if json {
            var entries: [String: Int] = [:]
            for (name, count) in summary.entries { entries[name.rawValue] = count }
            let object: [String: Any] = [
                "projections": summary.projections.map(\.rawValue), "position": summary.position,
                "events": summary.eventsRead, "skipped": summary.skippedEvents,
                "seconds": (seconds * 1000).rounded() / 1000, "eventsPerSecond": summary.eventsPerSecond.rounded(),
                "entries": entries,
            ].merging(entities.map { ["entities": $0.json] } ?? [:]) { first, _ in first }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            CLIOutput.line(String(decoding: data, as: UTF8.self))
            return
        }
        CLIOutput.line("rebuilt \(summary.projections.map(\.rawValue).joined(separator: ", ")) from \(counted(summary.eventsRead, "event")) "
                       + "in \(String(format: "%.2f", seconds)) s (\(grouped(UInt64(summary.eventsPerSecond))) events/s); "
                       + "the models are at position \(summary.position)")
        let sizes = summary.projections.compactMap { name -> String? in
            summary.entries[name].map { count in
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
        if summary.skippedEvents > 0 {
            CLIOutput.line("\(counted(summary.skippedEvents, "event")) skipped (unknown type or unreadable data)")
        }
        if let entities { try reportEntities(entities, alone: false) }
    }

    /// What a rebuild of the stored entities came to.
    private struct EntitiesRebuilt {
        var model: String
        var version: Int
        var position: UInt64
        var seconds: Double

        var json: [String: Any] {
            ["model": model, "version": version, "position": position, "seconds": (seconds * 1000).rounded() / 1000]
        }
    }

    /// Rebuilds `entities/`, the stored entities of the model the store records, blue/green:
    /// readers in other processes keep the old ones until the swap. Progress on stderr.
    private func rebuildEntities(_ log: EventLog) throws -> EntitiesRebuilt {
        let model = try RecordedModel(log: log).model
        let states = try ModelStates(path: store.path + "/entities", model: model, log: log, noSync: log.options.noSync)
        let head = try log.head()
        let line = ProgressLine("rebuild entities")
        let started = ContinuousClock.now
        let position = try states.rebuild { position in line.show(done: min(position, head), total: head) }
        line.finish()
        let elapsed = (ContinuousClock.now - started).components
        return EntitiesRebuilt(model: model.name, version: model.version, position: position,
                               seconds: Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
    }

    private func reportEntities(_ rebuilt: EntitiesRebuilt, alone: Bool) throws {
        if json {
            guard alone else { return }
            let data = try JSONSerialization.data(withJSONObject: ["entities": rebuilt.json], options: [.sortedKeys])
            CLIOutput.line(String(decoding: data, as: UTF8.self))
            return
        }
        CLIOutput.line("rebuilt the entities of model '\(rebuilt.model)' version \(rebuilt.version) in "
                       + "\(String(format: "%.2f", rebuilt.seconds)) s; they are at position \(rebuilt.position)")
    }
}

/// The stderr progress of `rebuild` (a ``ProgressLine``, so only on a terminal), with the
/// time left.
private final class ProgressBar: Sendable {
    private let drawn = Mutex<ContinuousClock.Instant?>(nil)
    /// Test hook (CHRONICLE_REBUILD_PAUSE_AFTER): stop for good once this many events are
    /// applied, so a test can kill the process mid-rebuild at a known point.
    private let pauseAfter: UInt64?

    init(pauseAfter: UInt64?) { self.pauseAfter = pauseAfter }

    func show(_ progress: RebuildProgress) {
        if ProgressLine.stderrIsTerminal {
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
        if let pauseAfter, progress.done >= pauseAfter {
            CLIOutput.note("rebuild: paused after \(progress.done) events (CHRONICLE_REBUILD_PAUSE_AFTER)")
            while true { sleep(3600) }
        }
    }

    func finish() {
        if drawn.withLock({ $0 != nil }) { CLIOutput.note("") }
    }
}

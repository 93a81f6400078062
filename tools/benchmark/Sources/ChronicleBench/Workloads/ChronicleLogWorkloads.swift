import ChronicleLog
import Foundation

/// Chronicle's side of the log workloads, through the public `EventLog` API only.
enum ChronicleLogWorkloads {
    /// One atomic `append(_:)` of 1,000 one-event stream appends per batch, each with its
    /// expected version (as an app's commands give them); durable when it returns.
    /// `withKeys`: each event also carries its ``BenchEvent/appendKeys``.
    static func appendBatch(_ task: ChildTask, withKeys: Bool = false) async throws -> (Int, Double) {
        let log = try EventLog(path: task.directory)
        defer { log.close() }
        var watch = Stopwatch()
        let done = try await forEachBatch(task) { batch in
            let keys = withKeys ? batch.flatMap(\.appendKeys) : []
            try await watch.measureAsync { _ = try await log.append(batch.map(\.streamAppend), keys: keys) }
        }
        return (done, watch.seconds)
    }

    /// Each writer awaits one single-event append at a time; the log's writer thread
    /// commits whatever is queued together (group commit).
    static func appendSingle(_ task: ChildTask, withKeys: Bool = false) async throws -> (Int, Double) {
        let log = try EventLog(path: task.directory)
        defer { log.close() }
        let events = try loadEvents(task)
        // Decided before the clock starts, as for the batches.
        let keys = withKeys ? Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0.appendKeys) }) : [:]
        let work = lanes(events, writers: task.writers)
        return try await runLanes(work, timeLimit: task.timeLimit) { event in
            _ = try await log.append([event.streamAppend], keys: keys[event.id] ?? [])
        }
    }

    /// Appends this child's share (``ChildTask/lane`` of ``ChildTask/lanes``) of the first
    /// `count` events without fsync (setup for the sync push, not measured).
    static func prepare(_ task: ChildTask) async throws -> (Int, Double) {
        let log = try EventLog(path: task.directory, options: .init(noSync: true))
        var done = 0
        _ = try await forEachBatch(task) { batch in
            let share = batch.filter { Int($0.entity) % task.lanes == task.lane }
            done += share.count
            if !share.isEmpty { _ = try await log.append(share.map(\.streamAppend)) }
        }
        try log.environment.sync()
        log.close()
        return (done, 0)
    }
}

import Foundation

/// Splits events among concurrent writers by entity, so each stream has one writer and
/// its versions arrive in order (the expected-version checks all pass).
func lanes(_ events: [BenchEvent], writers: Int) -> [[BenchEvent]] {
    var lanes = [[BenchEvent]](repeating: [], count: writers)
    for event in events { lanes[Int(event.entity) % writers].append(event) }
    return lanes
}

/// Runs each lane on a task of its own, one awaited append at a time, until the lanes are
/// done or `timeLimit` passed; returns how many events were appended and how long it took.
func runLanes(_ lanes: [[BenchEvent]], timeLimit: Double?,
              _ append: @escaping @Sendable (BenchEvent) async throws -> Void) async throws -> (Int, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let deadline = timeLimit.map { start + .milliseconds(Int($0 * 1000)) }
    let done = try await withThrowingTaskGroup(of: Int.self) { group in
        for lane in lanes {
            group.addTask {
                var count = 0
                for event in lane {
                    if let deadline, clock.now >= deadline { break }
                    try await append(event)
                    count += 1
                }
                return count
            }
        }
        return try await group.reduce(0, +)
    }
    return (done, (clock.now - start).seconds)
}

/// Streams the data set in batches, printing progress every tenth of the way.
func forEachBatch(_ task: ChildTask, _ body: ([BenchEvent]) async throws -> Void) async throws -> Int {
    let reader = try DatasetReader(path: task.dataset)
    let total = min(task.count, reader.count)
    var done = 0
    var nextReport = total / 10
    while done < total {
        let batch = reader.next(min(task.batchSize, total - done))
        if batch.isEmpty { break }
        try await body(batch)
        done += batch.count
        if done >= nextReport, done < total {
            progress("    \(task.system.rawValue): \(done)/\(total) events")
            nextReport += total / 10
        }
    }
    return done
}

/// The first `count` events of the data set, in memory.
func loadEvents(_ task: ChildTask) throws -> [BenchEvent] {
    try DatasetReader(path: task.dataset).next(task.count)
}

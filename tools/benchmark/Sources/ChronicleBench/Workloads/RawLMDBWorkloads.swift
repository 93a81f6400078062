import Foundation

/// The raw LMDB floor: durable batches, durable single puts from 1 or 8 threads, a cursor scan.
enum RawLMDBWorkloads {
    static func appendBatch(_ task: ChildTask, withIndexes: Bool = false) async throws -> (Int, Double) {
        let store = try RawLMDB(path: task.directory, withIndexes: withIndexes)
        var watch = Stopwatch()
        var buffer: [UInt8] = []
        let done = try await forEachBatch(task) { batch in
            try watch.measure { try store.append(batch[...], buffer: &buffer) }
        }
        return (done, watch.seconds)
    }

    /// One write transaction (one fsync) per event; writers are threads blocking on LMDB's writer mutex.
    static func appendSingle(_ task: ChildTask) throws -> (Int, Double) {
        let store = try RawLMDB(path: task.directory)
        let work = lanes(try loadEvents(task), writers: task.writers)
        let failure = LockedBox<(any Error)?>(nil)
        let done = LockedBox(0)
        let group = DispatchGroup()
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = task.timeLimit.map { start + .milliseconds(Int($0 * 1000)) }
        for lane in work {
            group.enter()
            let thread = Thread {
                var buffer: [UInt8] = []
                var count = 0
                do {
                    for index in lane.indices {
                        if let deadline, clock.now >= deadline { break }
                        try store.append(lane[index...index], buffer: &buffer)
                        count += 1
                    }
                } catch {
                    failure.set(error)
                }
                done.update { $0 += count }
                group.leave()
            }
            thread.start()
        }
        group.wait()
        let elapsed = clock.now - start
        if let error = failure.value { throw error }
        return (done.value, elapsed.seconds)
    }

    /// Reads every record once: the floor under any rebuild.
    static func scan(_ task: ChildTask) throws -> (Int, Double) {
        let store = try RawLMDB(path: task.source!)
        var watch = Stopwatch()
        let result = try watch.measure { try store.scan() }
        return (result.count, watch.seconds)
    }
}

/// A value shared between threads under a lock.
final class LockedBox<Value>: @unchecked Sendable {
    // Thread rules: `stored` is read and written only with `lock` held.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}

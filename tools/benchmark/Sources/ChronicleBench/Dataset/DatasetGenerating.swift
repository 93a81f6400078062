import Foundation

/// A seeded generator of a data set's events: the todo app's (``DatasetGenerator``) or the
/// notebook's (``NotebookDatasetGenerator``).
protocol DatasetGenerating {
    /// Calls `emit` with each of `count` events, in the log's order.
    mutating func generate(count: Int, _ emit: (BenchEvent) -> Void)
}

extension DatasetGenerating {
    /// Writes `count` events into the data set file at `path`, saying on stderr what was made
    /// (`what`: "the notebook's ", or nothing) and how many of each type in `types`.
    mutating func write(to path: String, count: Int, what: String, seed: UInt64, access: String, types: [String]) throws {
        progress("generating \(what)\(count) events (seed \(seed), \(access) access)…")
        let clock = ContinuousClock()
        let start = clock.now
        let writer = try DatasetWriter(path: path, count: count)
        generate(count: count) { writer.append($0) }
        try writer.finish()
        let summary = writer.summary
        let mix = types.map { "\($0) \(summary.typeCounts[$0, default: 0])" }.joined(separator: ", ")
        progress("  \(summary.count) events, payload \(summary.payloadBytes / max(1, summary.count)) bytes on average, in \(String(format: "%.1f", (clock.now - start).seconds)) s")
        progress("  \(mix)")
    }
}

extension DatasetGenerator: DatasetGenerating {}
extension NotebookDatasetGenerator: DatasetGenerating {}

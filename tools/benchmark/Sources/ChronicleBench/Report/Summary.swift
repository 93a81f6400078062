/// Median, min and max of a few runs.
struct Spread: Sendable {
    var median: Double
    var min: Double
    var max: Double

    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        min = sorted.first!
        max = sorted.last!
    }
}

/// Every run of every workload on every system, in the order they ran.
struct BenchResults: Sendable {
    private(set) var runs: [Workload: [BenchSystem: [Measurement]]] = [:]

    mutating func record(_ workload: Workload, _ system: BenchSystem, _ measurement: Measurement) {
        runs[workload, default: [:]][system, default: []].append(measurement)
    }

    func measurements(_ workload: Workload, _ system: BenchSystem) -> [Measurement] {
        runs[workload]?[system] ?? []
    }

    func spread(_ workload: Workload, _ system: BenchSystem) -> Spread? {
        Spread(measurements(workload, system).map(\.rate))
    }

    func peakAnon(_ workload: Workload, _ system: BenchSystem) -> Int? {
        measurements(workload, system).map(\.peakAnonBytes).max()
    }

    /// Chronicle's rate over `other`'s, run by run (run i of one against run i of the
    /// other, taken side by side), then the median, min and max of those ratios.
    func ratio(_ workload: Workload, _ numerator: BenchSystem = .chronicle, over other: BenchSystem,
               otherWorkload: Workload? = nil) -> Spread? {
        let top = measurements(workload, numerator)
        let bottom = measurements(otherWorkload ?? workload, other)
        let pairs = zip(top, bottom).compactMap { $1.rate > 0 ? $0.rate / $1.rate : nil }
        return Spread(pairs)
    }
}

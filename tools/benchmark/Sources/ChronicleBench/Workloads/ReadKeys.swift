import ChronicleTodoDomain
import Foundation

/// The keys the point reads look up, the same for every system: a seeded sample of the
/// todos the data set created (a few of them deleted since, as in a real app) and
/// seeded days of 2026.
struct ReadKeys: Sendable {
    var todoIDs: [UUID]
    var days: [CalendarDay]

    static func load(dataset: String, seed: UInt64, sample: Int = 10_000) throws -> ReadKeys {
        var rng = SplitMix64(seed: seed)
        let reader = try DatasetReader(path: dataset)
        var streams: [String] = []
        streams.reserveCapacity(sample)
        var seen = 0
        while let event = reader.next() {
            guard event.type == "TodoCreated" else { continue }
            seen += 1
            if streams.count < sample {
                streams.append(event.stream)
            } else {
                let slot = rng.below(seen)
                if slot < sample { streams[slot] = event.stream }
            }
        }
        let todoIDs = streams.compactMap { UUID(uuidString: String($0.dropFirst("todo-".count))) }
        let first = try CalendarDay(year: 2026, month: 1, day: 1)
        let days = (0..<sample).map { _ in first.adding(days: rng.below(365)) }
        return ReadKeys(todoIDs: todoIDs, days: days)
    }
}

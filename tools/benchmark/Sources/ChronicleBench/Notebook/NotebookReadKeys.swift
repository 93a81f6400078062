import ChronicleTodoDomain
import Foundation

/// The keys the notebook's point reads look up, the same for every system: a seeded sample
/// of the notes and of the folders the data set created (some deleted or hidden since, as in
/// a real app) and seeded days of 2026.
struct NotebookReadKeys: Sendable {
    var noteIDs: [UUID]
    var folderIDs: [UUID]
    var days: [String]

    static func load(dataset: String, seed: UInt64, sample: Int = 10_000) throws -> NotebookReadKeys {
        var rng = SplitMix64(seed: seed)
        var notes = ReservoirSample(size: sample)
        var folders = ReservoirSample(size: sample)
        let reader = try DatasetReader(path: dataset)
        while let event = reader.next() {
            switch event.type {
            case NotebookModel.note.events.created: notes.offer(event.stream, &rng)
            case NotebookModel.folder.events.created: folders.offer(event.stream, &rng)
            default: break
            }
        }
        let first = try CalendarDay(year: 2026, month: 1, day: 1)
        let days = (0..<sample).map { _ in first.adding(days: rng.below(365)).description }
        return NotebookReadKeys(noteIDs: notes.ids(after: NotebookModel.note.stream), folderIDs: folders.ids(after: NotebookModel.folder.stream),
                                days: days)
    }
}

/// A uniform sample of a sequence of streams, `size` at most (reservoir sampling).
private struct ReservoirSample {
    let size: Int
    private var streams: [String] = []
    private var seen = 0

    init(size: Int) { self.size = size }

    mutating func offer(_ stream: String, _ rng: inout SplitMix64) {
        seen += 1
        if streams.count < size {
            streams.append(stream)
        } else {
            let slot = rng.below(seen)
            if slot < size { streams[slot] = stream }
        }
    }

    /// The ids of the streams sampled, named `<prefix>-<id>`.
    func ids(after prefix: String) -> [UUID] {
        streams.compactMap { UUID(uuidString: String($0.dropFirst(prefix.count + 1))) }
    }
}

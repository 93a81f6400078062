/// One event of a stream, as the stream index knows it.
struct StreamEntry: Sendable, Equatable {
    let position: UInt64
    let version: UInt64
}

/// The stream entries of a contiguous run of positions `(base, covered]`, in memory.
///
/// The log keeps its stream index in LMDB only up to a checkpoint (see ``StreamIndex``); the
/// events after it are indexed by a `StreamTail`, rebuilt from the events themselves.
struct StreamTail: Sendable {
    /// The position the entries follow (the checkpoint).
    private(set) var base: UInt64
    /// Every event in `(base, covered]` has its entry here.
    private(set) var covered: UInt64
    private var streams: [String: [StreamEntry]] = [:]

    init(base: UInt64 = 0) {
        self.base = base
        self.covered = base
    }

    /// Adds the event at `position`, which must be `covered + 1`.
    mutating func add(stream: String, position: UInt64, version: UInt64) {
        precondition(position == covered + 1, "stream tail positions must be contiguous")
        streams[stream, default: []].append(StreamEntry(position: position, version: version))
        covered = position
    }

    /// Adds every entry of `next`, whose run of positions must start where this one ends.
    mutating func append(_ next: StreamTail) {
        precondition(next.base == covered, "stream tails must be contiguous")
        for (stream, entries) in next.streams { streams[stream, default: []] += entries }
        covered = next.covered
    }

    /// The entries of `stream` at or before `head`, in position order.
    func entries(of stream: String, through head: UInt64) -> ArraySlice<StreamEntry> {
        guard let entries = streams[stream] else { return [] }
        guard let last = entries.last, last.position > head else { return entries[...] }
        let end = entries.firstIndex { $0.position > head } ?? entries.endIndex
        return entries[..<end]
    }

    /// The last version of `stream` at or before `head`, if it has an entry here.
    func version(of stream: String, through head: UInt64) -> UInt64? {
        entries(of: stream, through: head).last?.version
    }

    /// Drops the entries at or before `checkpoint` (now in LMDB); `checkpoint` must be within the tail.
    mutating func advanceBase(to checkpoint: UInt64) {
        precondition(checkpoint >= base && checkpoint <= covered, "checkpoint outside the stream tail")
        guard checkpoint > base else { return }
        base = checkpoint
        streams = streams.compactMapValues { entries in
            let kept = entries.drop { $0.position <= checkpoint }
            return kept.isEmpty ? nil : Array(kept)
        }
    }

    /// Every entry at or before `head`, grouped by stream (for writing a checkpoint).
    func allEntries(through head: UInt64) -> [String: ArraySlice<StreamEntry>] {
        var all: [String: ArraySlice<StreamEntry>] = [:]
        all.reserveCapacity(streams.count)
        for stream in streams.keys {
            let entries = entries(of: stream, through: head)
            if !entries.isEmpty { all[stream] = entries }
        }
        return all
    }
}

import ChronicleLMDB

/// A checkpoint of the stream index being written into `streams`, one key range per write
/// transaction (``StreamIndex``).
///
/// A checkpoint writes each stream's entries after the old checkpoint where the stream's key
/// puts them, and streams are spread over the whole index, so its cost is the index's pages it
/// dirties: most of them, whatever the number of entries. Writing many events' entries in one
/// checkpoint dirties each page once for all of them; writing them in one transaction would
/// hold every dirtied page in memory until the commit. So a merge takes the streams in key
/// order and writes a slice of them per transaction, each slice a range of keys of its own.
///
/// The plan is made once, from the stream tail: each stream with events in `(from, target]`,
/// its key, and its last position up to `target`. Its entries are read from the tail as each
/// slice is written (a chain walk), so the plan holds one position per stream, not its events.
struct StreamMerge: Sendable {
    /// The merge writes every event in `(checkpoint, target]`; then the checkpoint moves to `target`.
    let target: UInt64
    /// Each planned stream's `streams` prefix, numbered as `lasts`: copied from the tail's table,
    /// which a transaction that fails mid-merge renumbers (``StreamTail/truncate(to:)``).
    private let keys: KeyList
    /// Each planned stream's last position up to `target`.
    private let lasts: [UInt64]
    /// The streams in key order.
    private let order: [Int]
    /// How many streams of `order` earlier slices wrote.
    private(set) var written = 0

    /// The merge of the entries `tail` holds through `target`.
    init(of tail: StreamTail, through target: UInt64) {
        self.target = target
        var keys = KeyList()
        var lasts: [UInt64] = []
        tail.forEachStreamLast(through: target) { prefix, last in
            keys.append(prefix)
            lasts.append(last)
        }
        self.keys = keys
        self.lasts = lasts
        order = keys.sortedIndexes()
    }

    /// Whether every slice is written.
    var isComplete: Bool { written == order.count }

    /// Writes the next slice, about `entries` entries, through `cursor` (over `streams`): the
    /// entries in `tail` of the next streams in key order. Entries at or before the tail's base
    /// are left out: a checkpoint since the plan was made wrote them.
    mutating func writeSlice(of tail: StreamTail, entries budget: Int, _ cursor: inout Cursor) throws {
        var key = [UInt8](), value = [UInt8](), entries: [StreamEntry] = []
        var left = budget
        while written < order.count, left > 0 {
            let stream = order[written]
            tail.entries(endingAt: lasts[stream], into: &entries)
            let prefix = keys[stream]
            for entry in entries {
                key.removeAll(keepingCapacity: true)
                key += prefix
                key.appendBigEndian(entry.position)
                value.removeAll(keepingCapacity: true)
                value.appendBigEndian(entry.version)
                try key.withUnsafeBytes { k in try value.withUnsafeBytes { v in try cursor.put(key: k, value: v) } }
            }
            left -= max(1, entries.count)
            written += 1
        }
    }
}

import Foundation

/// One event of a stream, as the stream index knows it.
struct StreamEntry: Sendable, Equatable {
    let position: UInt64
    let version: UInt64
}

/// The stream entries of a contiguous run of positions `(base, covered]`, in memory.
///
/// The log keeps its stream index in LMDB only up to a checkpoint (see ``StreamIndex``); the
/// events after it are indexed by a `StreamTail`, rebuilt from the events themselves.
///
/// Layout: one flat array with a slot per position (the event's version and the position of
/// its stream's previous event, a backward chain), and a ``NameTable`` from each stream to
/// its first and last position here. Adding an event hashes its stream once and allocates and
/// retains nothing per stream; a stream's entries are read by walking its chain back from the
/// last one.
struct StreamTail: Sendable {
    /// The position the entries follow (the checkpoint).
    private(set) var base: UInt64
    /// Every event in `(base, covered]` has its slot here.
    private(set) var covered: UInt64
    /// The slot of position `p` is `slots[p - base - 1]`.
    private var slots: [Slot] = []
    private var streams = NameTable<Span>()

    private struct Slot {
        let version: UInt64
        /// The position of the same stream's previous event, or 0 when it has none in `(base, covered]`.
        var previous: UInt64
    }

    /// A stream's first and last positions in the tail.
    private struct Span {
        var first: UInt64
        var last: UInt64

        /// Makes `position` the stream's last; returns the position it follows (0 for none).
        mutating func extend(to position: UInt64) -> UInt64 {
            defer { last = position }
            return last
        }
    }

    /// An empty tail after `base`.
    init(base: UInt64 = 0) {
        self.base = base
        self.covered = base
    }

    /// Adds the event at `position`, which must be `covered + 1`.
    mutating func add(stream: StreamName, position: UInt64, version: UInt64) {
        stream.withBytes { add(stream: $0, hash: stream.hash, position: position, version: version) }
    }

    /// Adds the event at `position`, which must be `covered + 1`, of the stream named `stream`
    /// (its UTF-8 bytes, as a record holds them), whose ``NameHash`` is `hash`.
    mutating func add(stream: UnsafeRawBufferPointer, hash: Int, position: UInt64, version: UInt64) {
        precondition(position == covered + 1, "stream tail positions must be contiguous")
        let previous: UInt64
        if let index = streams.index(of: stream, hash: hash) {
            previous = streams[index].extend(to: position)
        } else {
            _ = streams.add(stream, hash: hash, value: Span(first: position, last: position))
            previous = 0
        }
        slots.append(Slot(version: version, previous: previous))
        covered = position
    }

    /// Drops the entries after `position` (the events of a write transaction that did not
    /// commit); `position` must be within the tail. Walks every stream here: for a rare event.
    mutating func truncate(to position: UInt64) {
        precondition(position >= base && position <= covered, "truncation outside the stream tail")
        guard position < covered else { return }
        let old = streams
        streams = old.filtered { span in
            guard span.last > position else { return span }
            let last = lastPosition(from: span.last, through: position)   // at or before the base: none left here
            return last > base ? Span(first: span.first, last: last) : nil
        }
        slots.removeLast(Int(covered - position))
        covered = position
    }

    /// The entries of `stream` at or before `head`, in position order.
    func entries(of stream: String, through head: UInt64) -> [StreamEntry] {
        guard let index = streams.index(of: StreamName(stream)) else { return [] }
        let span = streams[index]
        var entries: [StreamEntry] = []
        self.entries(endingAt: lastPosition(from: span.last, through: head), into: &entries)
        return entries
    }

    /// The last version of `stream` at or before `head`, if it has an entry here.
    func version(of stream: StreamName, through head: UInt64) -> UInt64? {
        guard let index = streams.index(of: stream) else { return nil }
        let position = lastPosition(from: streams[index].last, through: head)
        return position > base ? slot(position).version : nil
    }

    /// Drops the entries at or before `checkpoint` (now in LMDB); `checkpoint` must be within the tail.
    mutating func advanceBase(to checkpoint: UInt64) {
        precondition(checkpoint >= base && checkpoint <= covered, "checkpoint outside the stream tail")
        guard checkpoint > base else { return }
        // The new table is sized as this one stands (``NameTable/filtered(_:)``): it fills up
        // again as the tail grows back to as many events.
        let old = streams
        streams = old.filtered { span in
            guard span.last > checkpoint else { return nil }
            var first = span.last
            while true {
                let previous = slot(first).previous
                guard previous > checkpoint else { break }
                first = previous
            }
            slots[Int(first - base - 1)].previous = 0
            return Span(first: first, last: span.last)
        }
        slots.removeFirst(Int(checkpoint - base))
        base = checkpoint
    }

    /// Calls `body` for each stream with entries at or before `head`, with its `streams` key
    /// prefix (valid only during the call) and its last position up to `head` (a ``StreamMerge``
    /// plans from these).
    func forEachStreamLast(through head: UInt64, _ body: (UnsafeRawBufferPointer, UInt64) -> Void) {
        for index in 0..<streams.count {
            let last = lastPosition(from: streams[index].last, through: head)
            if last > base { streams.withPrefix(index) { body($0, last) } }
        }
    }

    /// Sets `entries` to the entries of the stream whose event is at `last`, up to it, in
    /// position order (none when `last` is at or before the base). `last` must be within the tail.
    func entries(endingAt last: UInt64, into entries: inout [StreamEntry]) {
        precondition(last <= covered, "a position past the stream tail")
        entries.removeAll(keepingCapacity: true)
        var position = last
        while position > base {
            let slot = slot(position)
            entries.append(StreamEntry(position: position, version: slot.version))
            position = slot.previous
        }
        entries.reverse()
    }

    // MARK: - Private

    private func slot(_ position: UInt64) -> Slot { slots[Int(position - base - 1)] }

    /// The position of a stream's last event at or before `head`, stepping back along its chain
    /// from `last` (its last here); at or before the base when it has none.
    private func lastPosition(from last: UInt64, through head: UInt64) -> UInt64 {
        var position = last
        while position > head, position > base { position = slot(position).previous }
        return position
    }

}

/// A stream's name with its hash worked out once: the tail's table is asked about a stream
/// several times per event, and names of one kind (`todo-` and a UUID) are long and of equal
/// length, so hashing them and telling them apart byte by byte at every probe cost more than
/// the rest of a lookup. Two names compare by their hashes first.
struct StreamName: Hashable, Sendable {
    let text: String
    /// The name's ``NameHash``, worked out once (a ``NameTable`` probes with it).
    let hash: Int

    init(_ text: String) {
        self.text = text
        var bytes = text
        hash = bytes.withUTF8 { NameHash.of(UnsafeRawBufferPointer($0)) }
    }

    static func == (a: StreamName, b: StreamName) -> Bool {
        a.hash == b.hash && a.text == b.text
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    /// Hands `body` the name's UTF-8 bytes (where they lie), valid only during the call.
    func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        var bytes = text
        return try bytes.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}

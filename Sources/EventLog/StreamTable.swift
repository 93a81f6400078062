import Foundation

/// The streams of a ``StreamTail``, each with a value, held without an object per stream.
///
/// A `[StreamName: Value]` keeps a reference to each name's string: adding a stream retained
/// it, a merge's plan retained every name it read (and missed the cache on each), and dropping
/// the table at a merge released each one. At a million events those were about a tenth of the
/// writer's thread. Here the names' bytes lie side by side in one buffer, each followed by a 0
/// byte, so that a name as stored is its `streams` key prefix (`Keys.streamPrefix`); an
/// open-addressing table of their hashes finds them. Nothing is retained per stream.
///
/// Streams are numbered from 0 in the order they were added; a number stays valid until
/// ``filtered(_:)`` makes a new table.
struct StreamTable<Value: Sendable>: Sendable {
    /// The names, each followed by a 0 byte.
    private var bytes: [UInt8] = []
    private var entries: [Entry] = []
    /// Each stream's number, or -1 for an empty bucket; the count is a power of two, at least twice the streams'.
    private var buckets: [Int32]

    private struct Entry: Sendable {
        let start: Int32
        /// The name's length, without its 0 byte.
        let length: Int32
        let hash: Int
        var value: Value
    }

    /// An empty table with room for `capacity` streams before it grows.
    init(capacity: Int = 0) {
        var count = 16
        while count < capacity * 2 { count *= 2 }
        buckets = Array(repeating: -1, count: count)
        entries.reserveCapacity(capacity)
    }

    /// How many streams.
    var count: Int { entries.count }

    /// The number of `name`'s stream, if it is here.
    func index(of name: StreamName) -> Int? {
        name.withBytes { text in
            var bucket = name.hash & (buckets.count - 1)
            while true {
                let index = Int(buckets[bucket])
                if index < 0 { return nil }
                if entries[index].hash == name.hash, matches(entries[index], text) { return index }
                bucket = (bucket + 1) & (buckets.count - 1)
            }
        }
    }

    /// Adds `name`'s stream, which must not be here, and returns its number.
    mutating func add(_ name: StreamName, value: Value) -> Int {
        if (entries.count + 1) * 2 > buckets.count { grow() }
        let index = entries.count
        name.withBytes { text in
            entries.append(Entry(start: Int32(bytes.count), length: Int32(text.count), hash: name.hash, value: value))
            bytes.append(contentsOf: text)
            bytes.append(0)
        }
        place(index)
        return index
    }

    /// The value of stream number `index`.
    subscript(index: Int) -> Value {
        get { entries[index].value }
        set { entries[index].value = newValue }
    }

    /// Hands `body` the `streams` key prefix of stream number `index` (its name and a 0 byte),
    /// valid only during the call.
    func withPrefix<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let entry = entries[index]
        return try bytes.withUnsafeBytes { all in
            try body(UnsafeRawBufferPointer(rebasing: all[Int(entry.start)..<Int(entry.start + entry.length + 1)]))
        }
    }

    /// The name of stream number `index`.
    func name(_ index: Int) -> String {
        withPrefix(index) { String(decoding: $0.dropLast(), as: UTF8.self) }
    }

    /// A table of the streams `transform` gives a value for, with room for as many streams as
    /// this one holds (it fills up again as the tail grows back).
    func filtered(_ transform: (Value) -> Value?) -> StreamTable {
        var kept = StreamTable(capacity: entries.count)
        kept.bytes.reserveCapacity(bytes.count)
        for entry in entries {
            guard let value = transform(entry.value) else { continue }
            let index = kept.entries.count
            kept.entries.append(Entry(start: Int32(kept.bytes.count), length: entry.length, hash: entry.hash, value: value))
            kept.bytes.append(contentsOf: bytes[Int(entry.start)..<Int(entry.start + entry.length + 1)])
            kept.place(index)
        }
        return kept
    }

    // MARK: - Private

    private func matches(_ entry: Entry, _ text: UnsafeRawBufferPointer) -> Bool {
        guard Int(entry.length) == text.count else { return false }
        return bytes.withUnsafeBytes { all in
            text.isEmpty || memcmp(all.baseAddress! + Int(entry.start), text.baseAddress!, text.count) == 0
        }
    }

    /// Puts stream number `index` into the first empty bucket from its hash on.
    private mutating func place(_ index: Int) {
        var bucket = entries[index].hash & (buckets.count - 1)
        while buckets[bucket] >= 0 { bucket = (bucket + 1) & (buckets.count - 1) }
        buckets[bucket] = Int32(index)
    }

    private mutating func grow() {
        buckets = Array(repeating: -1, count: buckets.count * 2)
        for index in entries.indices { place(index) }
    }
}

import Foundation

/// Names (streams', append keys'), each with a value, held without an object per name: the
/// tables of the stream index's tail and of the touches after their checkpoint.
///
/// A `[String: Value]` keeps a reference to each name's string: adding a stream retained it, a
/// merge's plan retained every name it read (and missed the cache on each), and dropping the
/// table at a merge released each one; reading the touches back made a string of every key.
/// At a million events those were about a tenth of the writer's thread. Here the names' bytes
/// lie side by side in one buffer, each followed by a 0 byte, so that a stream's name as stored
/// is its `streams` key prefix (`Keys.streamPrefix`); an open-addressing table of their hashes
/// (``NameHash``) finds them. Nothing is retained per name.
///
/// Names are numbered from 0 in the order they were added; a number stays valid until
/// ``filtered(_:)`` makes a new table.
struct NameTable<Value: Sendable>: Sendable {
    /// The names, each followed by a 0 byte.
    private var bytes: [UInt8] = []
    private var entries: [Entry] = []
    /// Each name's number, or -1 for an empty bucket; the count is a power of two, at least twice the names'.
    private var buckets: [Int32]

    private struct Entry: Sendable {
        /// Where the name starts in `bytes` (an `Int`: the names of a tail of tens of millions
        /// of events may pass 2 GiB, where an `Int32` would trap).
        let start: Int
        /// The name's length, without its 0 byte (a stream's or key's is at most 65,535 bytes).
        let length: Int32
        let hash: Int
        var value: Value
    }

    /// An empty table with room for `capacity` names before it grows.
    init(capacity: Int = 0) {
        var count = 16
        while count < capacity * 2 { count *= 2 }
        buckets = Array(repeating: -1, count: count)
        entries.reserveCapacity(capacity)
    }

    /// How many names.
    var count: Int { entries.count }

    /// The number of `name`, whose ``NameHash`` is `hash`, if it is here.
    func index(of name: UnsafeRawBufferPointer, hash: Int) -> Int? {
        var bucket = hash & (buckets.count - 1)
        while true {
            let index = Int(buckets[bucket])
            if index < 0 { return nil }
            if entries[index].hash == hash, matches(entries[index], name) { return index }
            bucket = (bucket + 1) & (buckets.count - 1)
        }
    }

    /// Adds `name`, whose ``NameHash`` is `hash` and which must not be here, and returns its number.
    mutating func add(_ name: UnsafeRawBufferPointer, hash: Int, value: Value) -> Int {
        if (entries.count + 1) * 2 > buckets.count { grow() }
        let index = entries.count
        entries.append(Entry(start: bytes.count, length: Int32(name.count), hash: hash, value: value))
        bytes.append(contentsOf: name)
        bytes.append(0)
        place(index)
        return index
    }

    /// Sets `name`'s value, adding it if it is not here.
    mutating func set(_ name: UnsafeRawBufferPointer, hash: Int, to value: Value) {
        if let index = index(of: name, hash: hash) {
            entries[index].value = value
        } else {
            _ = add(name, hash: hash, value: value)
        }
    }

    /// The value of name number `index`.
    subscript(index: Int) -> Value {
        get { entries[index].value }
        set { entries[index].value = newValue }
    }

    /// Hands `body` name number `index` followed by its 0 byte (a stream's `streams` key
    /// prefix), valid only during the call.
    func withPrefix<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try withBytes(index, count: { $0 + 1 }, body)
    }

    /// Hands `body` name number `index`, valid only during the call.
    func withName<T>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try withBytes(index, count: { $0 }, body)
    }

    /// A table of the names `transform` gives a value for, with room for as many names as this
    /// one holds (it fills up again as the tail grows back).
    func filtered(_ transform: (Value) -> Value?) -> NameTable {
        var kept = NameTable(capacity: entries.count)
        kept.bytes.reserveCapacity(bytes.count)
        for entry in entries {
            guard let value = transform(entry.value) else { continue }
            let index = kept.entries.count
            kept.entries.append(Entry(start: kept.bytes.count, length: entry.length, hash: entry.hash, value: value))
            kept.bytes.append(contentsOf: bytes[entry.start..<entry.start + Int(entry.length) + 1])
            kept.place(index)
        }
        return kept
    }

    // MARK: - Private

    private func withBytes<T>(_ index: Int, count: (Int) -> Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let entry = entries[index]
        return try bytes.withUnsafeBytes { all in
            try body(UnsafeRawBufferPointer(rebasing: all[entry.start..<entry.start + count(Int(entry.length))]))
        }
    }

    private func matches(_ entry: Entry, _ name: UnsafeRawBufferPointer) -> Bool {
        guard Int(entry.length) == name.count else { return false }
        return bytes.withUnsafeBytes { all in
            name.isEmpty || memcmp(all.baseAddress! + entry.start, name.baseAddress!, name.count) == 0
        }
    }

    /// Puts name number `index` into the first empty bucket from its hash on.
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

/// The hash a ``NameTable`` finds a name by: of its UTF-8 bytes, so that a name read from
/// stored bytes hashes as its string does.
enum NameHash {
    static func of(_ name: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: name)
        return hasher.finalize()
    }
}

extension NameTable {
    /// The number of `name`'s stream, if it is here.
    func index(of name: StreamName) -> Int? {
        name.withBytes { index(of: $0, hash: name.hash) }
    }

    /// The name number `index`, as a string.
    func name(_ index: Int) -> String {
        withName(index) { String(decoding: $0, as: UTF8.self) }
    }
}

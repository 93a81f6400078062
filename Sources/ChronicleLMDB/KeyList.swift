/// Keys laid side by side in one buffer, to be written in the order LMDB keeps them
/// (``KeyOrder``): an array each would be an allocation each, and sorting arrays retained and
/// released both at every comparison.
///
/// The sort compares each key's first 32 bytes as four big-endian numbers, which order keys as
/// their bytes do unless they are equal; only then are the keys themselves compared. Index keys
/// are mostly 20 to 36 bytes and differ early (a day, a user, a stream's id), and compared with
/// `memcmp` their sort took a quarter of a rebuild's writing of its models.
public struct KeyList: Sendable {
    private var bytes: [UInt8] = []
    private var ranges: [Range<Int>] = []
    /// The keys' numbers in the order LMDB keeps them, once ``sort()`` found it (nil: not yet,
    /// or a key was added since).
    private var order: [Int]?

    public init() {}

    /// How many keys.
    public var count: Int { ranges.count }

    /// Adds a key; keys are numbered from 0 in the order they are added.
    public mutating func append(_ key: [UInt8]) {
        key.withUnsafeBytes { append($0) }
    }

    /// Adds a key that lies in memory someone else owns.
    public mutating func append(_ key: UnsafeRawBufferPointer) {
        let start = bytes.count
        bytes.append(contentsOf: key)
        ranges.append(start..<bytes.count)
        order = nil
    }

    /// Sorts the keys now, on the thread that calls it (``withSorted(_:)`` then takes this order):
    /// each of several threads sorts the keys it made, and one merges them (``merged(_:)``).
    public mutating func sort() {
        if order == nil { order = sortedIndexes() }
    }

    /// The keys of `lists` in one list, in the order LMDB keeps them: each list sorted (on the
    /// caller's thread where ``sort()`` did not), then merged, each key compared with the head
    /// of each other list.
    public static func merged(_ lists: [KeyList]) -> KeyList {
        var merged = KeyList()
        merged.bytes.reserveCapacity(lists.reduce(0) { $0 + $1.bytes.count })
        merged.ranges.reserveCapacity(lists.reduce(0) { $0 + $1.ranges.count })
        let orders = lists.map { $0.order ?? $0.sortedIndexes() }
        var next = [Int](repeating: 0, count: lists.count)
        while true {
            // The list whose next key sorts first.
            var first: Int?
            for index in lists.indices where next[index] < orders[index].count {
                guard let best = first else {
                    first = index
                    continue
                }
                let key = lists[index].ranges[orders[index][next[index]]], bestKey = lists[best].ranges[orders[best][next[best]]]
                let precedes = lists[index].bytes.withUnsafeBytes { a in
                    lists[best].bytes.withUnsafeBytes { b in
                        KeyOrder.precedes(UnsafeRawBufferPointer(rebasing: a[key]), UnsafeRawBufferPointer(rebasing: b[bestKey]))
                    }
                }
                if precedes { first = index }
            }
            guard let first else { break }
            let range = lists[first].ranges[orders[first][next[first]]]
            next[first] += 1
            let start = merged.bytes.count
            lists[first].bytes.withUnsafeBytes { merged.bytes.append(contentsOf: $0[range]) }
            merged.ranges.append(start..<merged.bytes.count)
        }
        merged.order = Array(merged.ranges.indices)
        return merged
    }

    /// The key numbered `index`.
    public subscript(index: Int) -> ArraySlice<UInt8> { bytes[ranges[index]] }

    /// The keys' numbers in the order LMDB keeps the keys.
    public func sortedIndexes() -> [Int] {
        bytes.withUnsafeBytes { all in
            let keys = ranges.map { UnsafeRawBufferPointer(rebasing: all[$0]) }
            var order = keys.indices.map { SortKey(keys[$0], index: $0) }
            order.sort { a, b in a.words != b.words ? a.words < b.words : KeyOrder.precedes(keys[a.index], keys[b.index]) }
            return order.map(\.index)
        }
    }

    /// Hands `body` the keys in the order LMDB keeps them, each where it lies (valid only during the call).
    public func withSorted<T>(_ body: ([UnsafeRawBufferPointer]) throws -> T) rethrows -> T {
        let order = self.order ?? sortedIndexes()
        return try bytes.withUnsafeBytes { all in try body(order.map { UnsafeRawBufferPointer(rebasing: all[ranges[$0]]) }) }
    }

    /// A key's first 32 bytes as big-endian numbers, zeros past its end.
    private struct SortKey {
        let words: (UInt64, UInt64, UInt64, UInt64)
        let index: Int

        init(_ key: UnsafeRawBufferPointer, index: Int) {
            var padded: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &padded) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: key.prefix(32))) }
            words = (UInt64(bigEndian: padded.0), UInt64(bigEndian: padded.1), UInt64(bigEndian: padded.2), UInt64(bigEndian: padded.3))
            self.index = index
        }
    }
}

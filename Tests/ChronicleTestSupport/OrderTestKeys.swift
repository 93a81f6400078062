/// Distinct keys for testing that something writes or sorts in LMDB's key order where that is
/// hard: a third share their first 32 bytes and differ after them (where a sort by a prefix must
/// look at the bytes), a third are prefixes of those 32 bytes (shorter keys first), a third random.
public func orderTestKeys(count: Int, using generator: inout SeededGenerator) -> Set<[UInt8]> {
    let shared = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    var keys = Set<[UInt8]>()
    while keys.count < count {
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: keys.insert(shared + (0..<Int.random(in: 0...6, using: &generator)).map { _ in UInt8.random(in: 0...3, using: &generator) })
        case 1: keys.insert(Array(shared.prefix(Int.random(in: 1...32, using: &generator))))
        default: keys.insert((0..<Int.random(in: 1...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
    }
    return keys
}

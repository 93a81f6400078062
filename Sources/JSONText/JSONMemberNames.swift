/// The names of one object's members read so far, to refuse a name given twice (see
/// ``JSONScanner/memberName(unique:)``). A handful (the usual object) are compared in place,
/// byte for byte; past that they are hashed, so an object of many members costs linear time,
/// not quadratic.
public struct JSONMemberNames {
    private static let comparedInPlace = 16

    private var ranges: [(Range<Int>, escaped: Bool)] = []
    private var hashed: Set<String>?

    /// No names yet: one for each object.
    public init() {}

    /// Adds the name whose content is `range` of `bytes`; `false` if the object already had it.
    mutating func insert(_ range: Range<Int>, escaped: Bool, in bytes: UnsafeRawBufferPointer) -> Bool {
        if hashed != nil {
            return hashed!.insert(JSONScanner.text(range, escaped: escaped, in: bytes)).inserted
        }
        for (seen, seenEscaped) in ranges {
            if !escaped && !seenEscaped {
                if seen.count == range.count && bytes[seen].elementsEqual(bytes[range]) { return false }
            } else if JSONScanner.text(seen, escaped: seenEscaped, in: bytes) == JSONScanner.text(range, escaped: escaped, in: bytes) {
                return false
            }
        }
        ranges.append((range, escaped))
        if ranges.count > Self.comparedInPlace {
            hashed = Set(ranges.map { JSONScanner.text($0.0, escaped: $0.escaped, in: bytes) })
            ranges = []
        }
        return true
    }
}

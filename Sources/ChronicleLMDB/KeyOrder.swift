import Foundation

/// The order LMDB keeps keys in by default: their bytes compared one by one, a key that is a
/// prefix of another first. For writing keys in the order they are stored (neighbouring puts
/// land on the pages the one before touched).
public enum KeyOrder {
    /// Whether key `a` comes before key `b` in a database of the default order.
    @inlinable
    public static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let common = min(a.count, b.count)
        let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
        return order != 0 ? order < 0 : a.count < b.count
    }
}

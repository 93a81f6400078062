import Foundation

extension UUID {
    /// Whether this id sorts before `other` by their lowercase texts (`lowercasedString`):
    /// the order of their bytes, since hexadecimal digits sort as the values they spell.
    /// Compares 16 bytes; makes no text.
    @inlinable
    public func sortsBefore(_ other: UUID) -> Bool {
        withUnsafeBytes(of: uuid) { a in withUnsafeBytes(of: other.uuid) { b in a.lexicographicallyPrecedes(b) } }
    }
}

import Foundation

public extension String {
    /// Equal as stored bytes. Swift's `==` also equates canonically equivalent spellings
    /// (a decomposed "é" and a composed one), which keys, hashes and event types must not.
    ///
    /// Compared with one `memcmp` (a small string from its own words); this runs for every
    /// event a rebuild or a pull decodes.
    func sameBytes(as other: String) -> Bool {
        var other = other
        return other.withUTF8 { sameBytes(as: UnsafeRawBufferPointer($0)) }
    }

    /// Equal to `bytes` as stored bytes (UTF-8 read in place, such as a log record's field).
    func sameBytes(as bytes: UnsafeRawBufferPointer) -> Bool {
        guard utf8.count == bytes.count else { return false }
        // `withUTF8` also gives a small string's bytes (held in the string's own two words, such
        // as a stream prefix's), where `withContiguousStorageIfAvailable` gave none and the
        // fallback compared them one by one through the UTF-8 view.
        var text = self
        return text.withUTF8 { mine in mine.isEmpty || memcmp(mine.baseAddress!, bytes.baseAddress!, mine.count) == 0 }
    }
}

public extension Optional where Wrapped == String {
    /// Both absent, or both present and equal as stored bytes.
    func sameBytes(as other: String?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case let (a?, b?): a.sameBytes(as: b)
        default: false
        }
    }
}

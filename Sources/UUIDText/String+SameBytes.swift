import Foundation

public extension String {
    /// Equal as stored bytes. Swift's `==` also equates canonically equivalent spellings
    /// (a decomposed "é" and a composed one), which keys, hashes and event types must not.
    ///
    /// Native strings are compared with one `memcmp`; this runs for every event a rebuild
    /// or a pull decodes.
    func sameBytes(as other: String) -> Bool {
        other.utf8.withContiguousStorageIfAvailable { sameBytes(as: UnsafeRawBufferPointer($0)) }
            ?? utf8.elementsEqual(other.utf8)
    }

    /// Equal to `bytes` as stored bytes (UTF-8 read in place, such as a log record's field).
    func sameBytes(as bytes: UnsafeRawBufferPointer) -> Bool {
        guard utf8.count == bytes.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { mine in
            mine.isEmpty || memcmp(mine.baseAddress!, bytes.baseAddress!, mine.count) == 0
        }
        return compared ?? utf8.elementsEqual(bytes)
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

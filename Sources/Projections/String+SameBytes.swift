extension String {
    /// Equal as stored bytes (Swift's `==` also equates canonically equivalent spellings).
    func sameBytes(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }
}

extension Optional where Wrapped == String {
    func sameBytes(as other: String?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case let (a?, b?): a.sameBytes(as: b)
        default: false
        }
    }
}

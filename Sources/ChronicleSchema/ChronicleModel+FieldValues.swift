import Foundation
import UUIDText

extension ChronicleModel {
    /// Field values by name: what an entity's state holds and what a creation or an update gives.
    ///
    /// It reads and writes as a dictionary does (`values["title"]`, a literal
    /// `["title": .text("Milk")]`, `for (name, value) in values`), and equals another holding
    /// the same names with the same values, in any order. Underneath, the values sit in slots in
    /// the order of their names, which states and events read by a model share with the entity's
    /// fields: a fold then moves values by place, hashing no name.
    ///
    /// Each slot holds its value as a stored read model keeps it (``StoredValue``), all in one
    /// buffer: a state is one allocation however many fields it has, is stored and read back by
    /// copying bytes, and compares by its bytes. A value is made when it is read. So two
    /// values laid alike are equal when they are kept alike: text by its UTF-8 bytes (not by
    /// canonical equivalence, as `String` compares), numbers by their bits.
    public struct FieldValues: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
        /// The name of each slot: the entity's fields in their order, then any other name written.
        package private(set) var names: [String]
        /// Where each slot begins (4 bytes each, little-endian; one more where the last ends),
        /// then the slots' values one after another: slot `i` is the bytes from bound `i` to
        /// bound `i + 1`, none when it holds no value. The same values in the same slots are
        /// the same bytes.
        private var storage: [UInt8]

        /// No values.
        public init() {
            names = []
            storage = Self.header(slots: 0)
        }

        /// The values of a dictionary.
        public init(_ values: [String: FieldValue]) {
            names = values.keys.sorted()
            storage = Self.header(slots: names.count)
            for (place, name) in names.enumerated() { setSlot(values[name], at: place) }
        }

        /// The values of a literal: `["title": .text("Milk"), "isCompleted": .boolean(false)]`.
        public init(dictionaryLiteral elements: (String, FieldValue)...) {
            self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
        }

        /// Empty slots named `names` (an entity's fields, in order): filled by place.
        package init(layout names: [String]) {
            self.names = names
            storage = Self.header(slots: names.count)
        }

        /// Slots named `layout`, filled from a stored read model's values (`count` of them,
        /// each a field's place (a varint) and its value as ``StoredValue`` writes it) read by `reader`:
        /// in place order, their bytes are copied, not read.
        /// - throws: ``StoredBytesReader/Short`` when the bytes are not such values.
        package init(layout: [String], stored count: Int, from reader: inout StoredBytesReader) throws {
            self.init(layout: layout)
            var filled = 0
            for _ in 0..<count {
                let place = try reader.varint()
                guard place < layout.count else { throw StoredBytesReader.Short() }
                let start = reader.offset
                try reader.skipValue()
                let value = UnsafeRawBufferPointer(rebasing: reader.bytes[start..<reader.offset])
                if place >= filled {
                    // Every slot before it is empty and ends here: the value is appended.
                    storage += value
                    setBounds((place + 1)...layout.count, to: storage.count)
                    filled = place + 1
                } else {
                    replaceSlot(at: place, with: value)
                }
            }
        }

        /// The value named `name`; setting nil removes it.
        public subscript(name: String) -> FieldValue? {
            get { place(of: name).flatMap { value(at: $0) } }
            set {
                if let place = place(of: name) {
                    setSlot(newValue, at: place)
                } else if let newValue {
                    addSlot(named: name)
                    setSlot(newValue, at: names.count - 1)
                }
            }
        }

        /// The value in slot `place` when that slot is named `name` (the layout of the entity's
        /// fields, as a model's states and events hold it), else the value named `name`.
        package func value(at place: Int, named name: String) -> FieldValue? {
            if place < names.count, names[place] == name { return value(at: place) }
            return self[name]
        }

        /// Sets the value in slot `place` when that slot is named `name`, else the value named `name`.
        package mutating func set(_ value: FieldValue?, at place: Int, named name: String) {
            if place < names.count, names[place] == name {
                setSlot(value, at: place)
            } else {
                self[name] = value
            }
        }

        /// Whether the slots are named `layout`, in its order.
        package func isLaid(as layout: [String]) -> Bool { names == layout }

        /// The place of the slot named `name`. Names are few and short: compared, not hashed.
        private func place(of name: String) -> Int? { names.firstIndex(of: name) }

        /// The names that hold a value, in slot order.
        public var keys: [String] { names.indices.compactMap { isEmpty(at: $0) ? nil : names[$0] } }
        /// The values held, in slot order.
        public var values: [FieldValue] { names.indices.compactMap { value(at: $0) } }
        /// How many names hold a value.
        public var count: Int { names.indices.count { !isEmpty(at: $0) } }
        /// Whether no name holds a value.
        public var isEmpty: Bool { bound(0) == storage.count }
        /// The values as a dictionary.
        public var dictionary: [String: FieldValue] {
            var values: [String: FieldValue] = [:]
            for (name, value) in self { values[name] = value }
            return values
        }

        /// Each name holding a value, with it, in slot order.
        public func makeIterator() -> Iterator { Iterator(values: self) }

        /// Steps through the names holding a value, in slot order.
        public struct Iterator: IteratorProtocol {
            let values: FieldValues
            var place = 0

            public mutating func next() -> (key: String, value: FieldValue)? {
                while place < values.names.count {
                    defer { place += 1 }
                    if let value = values.value(at: place) { return (values.names[place], value) }
                }
                return nil
            }
        }

        public static func == (a: FieldValues, b: FieldValues) -> Bool {
            if a.names == b.names { return a.storage == b.storage }
            return a.dictionary == b.dictionary
        }

        public func hash(into hasher: inout Hasher) {
            // In no order, as equality takes them: the sum of each pair's hash.
            var sum = 0
            for (name, value) in self {
                var pair = Hasher()
                pair.combine(name)
                pair.combine(value)
                sum &+= pair.finalize()
            }
            hasher.combine(sum)
        }

        public var description: String { dictionary.description }
    }
}

// MARK: - Slots read and written as bytes

extension ChronicleModel.FieldValues {
    /// Whether slot `place` (named `name`, as ``value(at:named:)`` finds it) holds a value.
    package func holdsValue(at place: Int, named name: String) -> Bool {
        if place < names.count, names[place] == name { return !isEmpty(at: place) }
        return self.place(of: name).map { !isEmpty(at: $0) } ?? false
    }

    /// The entity the slot named `name` refers to.
    package func reference(named name: String) -> UUID? {
        place(of: name).flatMap { reference(at: $0, named: name) }
    }

    /// Whether slot `place` (named `name`) holds empty text.
    package func holdsEmptyText(at place: Int, named name: String) -> Bool {
        guard place < names.count, names[place] == name else { return self[name] == .text("") }
        // A kind (1), then a length of 0 (1).
        let span = span(of: place)
        return span.count == 2 && storage[span.lowerBound] == StoredValue.Kind.text.rawValue
    }

    /// The kind of the value in slot `place` (nil: none).
    package func kind(at place: Int) -> StoredValue.Kind? {
        let span = span(of: place)
        return span.isEmpty ? nil : StoredValue.Kind(rawValue: storage[span.lowerBound])
    }

    /// Whether slot `place` holds the same value as slot `place` of `other`, byte for byte.
    package func holdsSame(at place: Int, as other: Self) -> Bool {
        let mine = span(of: place), theirs = other.span(of: place)
        guard mine.count == theirs.count else { return false }
        return storage.withUnsafeBytes { a in
            other.storage.withUnsafeBytes { b in
                mine.isEmpty || memcmp(a.baseAddress! + mine.lowerBound, b.baseAddress! + theirs.lowerBound, mine.count) == 0
            }
        }
    }

    /// Puts slot `place` of `other` (laid as this one is) in slot `place`, as its bytes.
    package mutating func copySlot(at place: Int, from other: Self) {
        let theirs = other.span(of: place)
        other.storage.withUnsafeBytes { replaceSlot(at: place, with: UnsafeRawBufferPointer(rebasing: $0[theirs])) }
    }

    /// Sets slot `place` (nil empties it).
    package mutating func setSlot(_ value: ChronicleModel.FieldValue?, at place: Int) {
        writeSlot(at: place) { bytes in
            if let value { StoredValue.append(value, to: &bytes) }
        }
    }

    /// Sets slot `place` to the text whose UTF-8 bytes are `text` (checked UTF-8), stored as
    /// ``StoredValue`` stores it, or, `asReference`, to the id it spells in either case;
    /// false (and nothing set) when it spells none.
    package mutating func setText(utf8 text: UnsafeRawBufferPointer, at place: Int, asReference: Bool) -> Bool {
        guard asReference else {
            writeSlot(at: place) { bytes in StoredValue.appendText(text, to: &bytes) }
            return true
        }
        // A reference spelled in any case is kept as the id, as StoredValue keeps one.
        guard text.count == 36, let id = UUID(hyphenated: text) else { return false }
        writeSlot(at: place) { bytes in
            bytes.append(StoredValue.Kind.id.rawValue)
            withUnsafeBytes(of: id.uuid) { bytes += $0 }
        }
        return true
    }

    /// The entity slot `place` (named `name`) refers to: its id, read from its bytes.
    package func reference(at place: Int, named name: String) -> UUID? {
        guard place < names.count, names[place] == name else {
            return self[name]?.text.flatMap { UUID(hyphenated: $0) }
        }
        let span = span(of: place)
        guard !span.isEmpty else { return nil }
        if storage[span.lowerBound] == StoredValue.Kind.id.rawValue {
            return storage.withUnsafeBytes { bytes in
                var reader = StoredBytesReader(bytes: bytes, offset: span.lowerBound + 1)
                return try? reader.uuid()
            }
        }
        return value(at: place)?.text.flatMap { UUID(hyphenated: $0) }
    }

    /// Appends the value of each of the entity's fields (whose names `layout` gives, in order)
    /// that holds one, as a stored read model keeps it: the field's place (a varint), then the value's
    /// bytes, copied where the slots are laid as `layout`; returns how many it appended.
    package func appendStored(to bytes: inout [UInt8], layout: [String]) -> Int {
        guard isLaid(as: layout) else {
            var appended = 0
            for (place, name) in layout.enumerated() {
                guard let value = value(at: place, named: name) else { continue }
                StoredValue.appendVarint(place, to: &bytes)
                StoredValue.append(value, to: &bytes)
                appended += 1
            }
            return appended
        }
        var appended = 0
        storage.withUnsafeBytes { storage in
            for place in layout.indices {
                let span = span(of: place)
                guard !span.isEmpty else { continue }
                StoredValue.appendVarint(place, to: &bytes)
                bytes += UnsafeRawBufferPointer(rebasing: storage[span])
                appended += 1
            }
        }
        return appended
    }

    // MARK: Storage

    /// The header of `slots` empty slots.
    private static func header(slots: Int) -> [UInt8] {
        let end = UInt32(4 * (slots + 1)).littleEndian
        return [UInt8](unsafeUninitializedCapacity: 4 * (slots + 1)) { buffer, count in
            for index in 0...slots {
                UnsafeMutableRawBufferPointer(buffer).storeBytes(of: end, toByteOffset: 4 * index, as: UInt32.self)
            }
            count = 4 * (slots + 1)
        }
    }

    private func bound(_ index: Int) -> Int {
        Int(UInt32(littleEndian: storage.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self) }))
    }

    private mutating func setBound(_ index: Int, _ offset: Int) {
        storage.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(offset).littleEndian, toByteOffset: 4 * index, as: UInt32.self) }
    }

    private func span(of place: Int) -> Range<Int> { bound(place)..<bound(place + 1) }

    private func isEmpty(at place: Int) -> Bool { bound(place) == bound(place + 1) }

    /// The value in slot `place` (nil: none).
    private func value(at place: Int) -> ChronicleModel.FieldValue? {
        let span = span(of: place)
        guard !span.isEmpty else { return nil }
        return storage.withUnsafeBytes { bytes in
            var reader = StoredBytesReader(bytes: UnsafeRawBufferPointer(rebasing: bytes[span]))
            return try? reader.value()
        }
    }

    /// Puts `bytes` (one stored value, or none) in slot `place`.
    private mutating func replaceSlot(at place: Int, with bytes: UnsafeRawBufferPointer) {
        writeSlot(at: place) { $0 += bytes }
    }

    /// Puts in slot `place` the bytes `write` appends (one stored value, or none).
    private mutating func writeSlot(at place: Int, _ write: (inout [UInt8]) -> Void) {
        let span = span(of: place)
        if span.upperBound == storage.count {
            // The last value (or none after it): written at the end, in place.
            storage.removeSubrange(span)
            write(&storage)
            shiftBounds(after: place, by: storage.count - span.upperBound)
        } else {
            var bytes: [UInt8] = []
            write(&bytes)
            storage.replaceSubrange(span, with: bytes)
            shiftBounds(after: place, by: bytes.count - span.count)
        }
    }

    /// Moves the bounds after slot `place` by `delta` bytes (in one access to the storage).
    private mutating func shiftBounds(after place: Int, by delta: Int) {
        guard delta != 0 else { return }
        let slots = names.count
        storage.withUnsafeMutableBytes { bytes in
            for index in (place + 1)...slots {
                let bound = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)))
                bytes.storeBytes(of: UInt32(bound + delta).littleEndian, toByteOffset: 4 * index, as: UInt32.self)
            }
        }
    }

    /// Sets the bounds `indices` to `offset` (in one access to the storage).
    private mutating func setBounds(_ indices: ClosedRange<Int>, to offset: Int) {
        storage.withUnsafeMutableBytes { bytes in
            for index in indices { bytes.storeBytes(of: UInt32(offset).littleEndian, toByteOffset: 4 * index, as: UInt32.self) }
        }
    }

    /// A slot named `name`, empty, after the others.
    private mutating func addSlot(named name: String) {
        let slots = names.count
        for index in 0...slots { setBound(index, bound(index) + 4) }
        let end = UInt32(storage.count + 4).littleEndian
        withUnsafeBytes(of: end) { storage.insert(contentsOf: $0, at: 4 * (slots + 1)) }
        names.append(name)
    }
}

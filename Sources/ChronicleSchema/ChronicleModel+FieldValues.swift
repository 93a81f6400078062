extension ChronicleModel {
    /// Field values by name: what an entity's state holds and what a creation or an update gives.
    ///
    /// It reads and writes as a dictionary does (`values["title"]`, a literal
    /// `["title": .text("Milk")]`, `for (name, value) in values`), and equals another holding
    /// the same names with the same values, in any order. Underneath, the values sit in slots in
    /// the order of their names, which states and events read by a model share with the entity's
    /// fields: a fold then moves values by place, hashing no name.
    public struct FieldValues: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
        /// The name of each slot: the entity's fields in their order, then any other name written.
        package private(set) var names: [String]
        /// Each name's value; nil where it holds none.
        package private(set) var slots: [FieldValue?]

        /// No values.
        public init() {
            names = []
            slots = []
        }

        /// The values of a dictionary.
        public init(_ values: [String: FieldValue]) {
            names = values.keys.sorted()
            slots = names.map { values[$0] }
        }

        /// The values of a literal: `["title": .text("Milk"), "isCompleted": .boolean(false)]`.
        public init(dictionaryLiteral elements: (String, FieldValue)...) {
            self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
        }

        /// Empty slots named `names` (an entity's fields, in order): filled by place.
        package init(layout names: [String]) {
            self.names = names
            slots = Array(repeating: nil, count: names.count)
        }

        /// The value named `name`; setting nil removes it.
        public subscript(name: String) -> FieldValue? {
            get { place(of: name).flatMap { slots[$0] } }
            set {
                if let place = place(of: name) {
                    slots[place] = newValue
                } else if let newValue {
                    names.append(name)
                    slots.append(newValue)
                }
            }
        }

        /// The value in slot `place` when that slot is named `name` (the layout of the entity's
        /// fields, as a model's states and events hold it), else the value named `name`.
        package func value(at place: Int, named name: String) -> FieldValue? {
            if place < names.count, names[place] == name { return slots[place] }
            return self[name]
        }

        /// Sets the value in slot `place` when that slot is named `name`, else the value named `name`.
        package mutating func set(_ value: FieldValue?, at place: Int, named name: String) {
            if place < names.count, names[place] == name {
                slots[place] = value
            } else {
                self[name] = value
            }
        }

        /// Whether the slots are named `layout`, in its order.
        package func isLaid(as layout: [String]) -> Bool { names == layout }

        /// The place of the slot named `name`. Names are few and short: compared, not hashed.
        private func place(of name: String) -> Int? { names.firstIndex(of: name) }

        /// The names that hold a value, in slot order.
        public var keys: [String] { zip(names, slots).compactMap { $1 == nil ? nil : $0 } }
        /// The values held, in slot order.
        public var values: [FieldValue] { slots.compactMap { $0 } }
        /// How many names hold a value.
        public var count: Int { slots.count { $0 != nil } }
        /// Whether no name holds a value.
        public var isEmpty: Bool { slots.allSatisfy { $0 == nil } }
        /// The values as a dictionary.
        public var dictionary: [String: FieldValue] {
            var values: [String: FieldValue] = [:]
            for (name, value) in zip(names, slots) { values[name] = value }
            return values
        }

        /// Each name holding a value, with it, in slot order.
        public func makeIterator() -> Iterator { Iterator(values: self) }

        /// Steps through the names holding a value, in slot order.
        public struct Iterator: IteratorProtocol {
            let values: FieldValues
            var place = 0

            public mutating func next() -> (key: String, value: FieldValue)? {
                while place < values.slots.count {
                    defer { place += 1 }
                    if let value = values.slots[place] { return (values.names[place], value) }
                }
                return nil
            }
        }

        public static func == (a: FieldValues, b: FieldValues) -> Bool {
            if a.names == b.names { return a.slots == b.slots }
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

/// An entity a generator keeps in an ``EntityPool``: its place in the pool's list.
protocol Pooled: AnyObject {
    var slot: Int { get set }
}

/// Entities a generator picks from at random: added and removed in constant time (the last
/// one takes the removed one's place), so a million events stay linear.
struct EntityPool<Element: Pooled> {
    private(set) var elements: [Element] = []

    var count: Int { elements.count }
    var isEmpty: Bool { elements.isEmpty }

    mutating func insert(_ element: Element) {
        element.slot = elements.count
        elements.append(element)
    }

    /// Removes `element`, which must be in the pool.
    mutating func remove(_ element: Element) {
        let last = elements.removeLast()
        if last !== element {
            last.slot = element.slot
            elements[element.slot] = last
        }
    }

    /// One element, uniformly (the pool must not be empty).
    func random(_ rng: inout SplitMix64) -> Element {
        elements[rng.below(elements.count)]
    }
}

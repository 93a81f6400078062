import Foundation

/// Entities in the order they were created, a removed one leaving its place empty: where a
/// generator picks a recent entity, as an app's users mostly change what they made lately.
struct CreationOrder<Element: AnyObject> {
    private var entries: [Element?] = []

    /// Adds `element` after every other; returns its place, to remove or put it back by.
    mutating func append(_ element: Element) -> Int {
        entries.append(element)
        return entries.count - 1
    }

    /// Empties place `place` (its entity was deleted).
    mutating func remove(at place: Int) { entries[place] = nil }

    /// Puts `element` back at its place (it was restored).
    mutating func restore(_ element: Element, at place: Int) { entries[place] = element }

    /// A recent entity `share` of the time: the one an exponential draw of mean `mean` goes
    /// back from the newest, or the first still there before it. Nil otherwise, or when none
    /// is: the caller picks among all then.
    func recent(_ rng: inout SplitMix64, share: Double, mean: Double) -> Element? {
        guard rng.chance(share) else { return nil }
        let back = Int(-Foundation.log(1 - rng.unit()) * mean)
        var index = entries.count - 1 - back
        while index >= 0 {
            if let element = entries[index] { return element }
            index -= 1
        }
        return nil
    }
}

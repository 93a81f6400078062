import Synchronization

/// A running total shared by the appending tasks.
final class Counter: Sendable {
    private let value = Mutex(0)

    /// Adds `amount`; returns the new total.
    func add(_ amount: Int) -> Int {
        value.withLock { value in
            value += amount
            return value
        }
    }
}

import Foundation
import ChronicleProjections

extension ChronicleStore {
    /// Observes a query: its current value first, then a fresh value after each change to
    /// it (this store's writes, pulled events, other processes' appends), never two equal
    /// values in a row. It ends when the store closes or the task iterating it is cancelled.
    ///
    /// ```swift
    /// @Observable final class DayModel {
    ///     var todos: [Todo] = []
    ///     func follow(_ store: ChronicleStore, day: String) async throws {
    ///         for try await todos in store.observe(.todos(on: day)) { self.todos = todos }
    ///     }
    /// }
    /// ```
    /// Values are read when the iteration asks for them, so a slow consumer gets the latest
    /// state, not a backlog: changes that arrive while it is busy are folded into one read.
    /// - throws: while iterating, what the query's read throws (``ChronicleError``).
    public func observe<Value>(_ query: StoreQuery<Value>) -> StoreObservation<Value> {
        StoreObservation(store: self, query: query, changes: changes())
    }
}

/// The values of an observed ``StoreQuery`` (see ``ChronicleStore/observe(_:)``).
public struct StoreObservation<Value: Sendable & Equatable>: AsyncSequence, Sendable {
    public typealias Element = Value

    let store: ChronicleStore
    let query: StoreQuery<Value>
    /// Subscribed before the first read, so no change between that read and the next is missed.
    let changes: AsyncStream<ReadModelChange>

    public func makeAsyncIterator() -> Iterator {
        Iterator(store: store, query: query, changes: changes.makeAsyncIterator())
    }

    /// Reads the query again after a change that may alter it, and delivers only a new value.
    public struct Iterator: AsyncIteratorProtocol {
        let store: ChronicleStore
        let query: StoreQuery<Value>
        var changes: AsyncStream<ReadModelChange>.Iterator
        var last: Value?
        /// The log's head when the last read began: that read saw every change up to it.
        var covered: UInt64 = 0

        public mutating func next() async throws -> Value? {
            if last == nil { return try await read() }
            while let change = await changes.next() {
                guard change.position > covered, query.mayChange(change) else { continue }
                let previous = last
                let value = try await read()
                if value != previous { return value }
            }
            return nil
        }

        /// Reads the value (which waits for the read models to reach the log's head) and remembers it.
        private mutating func read() async throws -> Value {
            covered = try store.head()
            let value = try await query.read(store)
            last = value
            return value
        }
    }
}

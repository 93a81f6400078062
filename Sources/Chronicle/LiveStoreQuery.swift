import Foundation
import Observation

/// A query's current result, kept up to date for a view: Chronicle's counterpart of SwiftData's
/// `@Query`, as an `@Observable` object a view model holds (one per list it shows).
///
/// ```swift
/// @Observable @MainActor final class TodayModel {
///     let todos: LiveStoreQuery<[Todo]>
///     let stats: LiveStoreQuery<[DailyStat]>
///     init(store: ChronicleStore) {
///         todos = LiveStoreQuery(.todos(on: "2026-12-01"), in: store)
///         stats = LiveStoreQuery(.stats(), in: store)
///     }
/// }
/// // In a SwiftUI view: ForEach(model.todos.value) { … } redraws after each change.
/// ```
///
/// It reads the query at once, then again after each change that may alter it (this store's
/// writes, pulled events, other processes' appends), as ``ChronicleStore/observe(_:)`` does,
/// and sets ``value`` on the main actor; observers (SwiftUI, `withObservationTracking`) are
/// told of each new value, never of an equal one. It stops when the store closes, when
/// ``stop()`` is called, or when it is released.
@Observable @MainActor
public final class LiveStoreQuery<Value: Sendable & Equatable> {
    /// The query's result: the placeholder until the first read, then the latest.
    public private(set) var value: Value
    /// Whether ``value`` holds a read (false while it is the placeholder).
    public private(set) var isLoaded = false
    /// Why the last read failed (it stops then); nil while all is well.
    public private(set) var failure: ChronicleError?

    @ObservationIgnored private var task: Task<Void, Never>?

    /// Starts following `query` on `store`, showing `placeholder` until the first read.
    public init(_ query: StoreQuery<Value>, in store: ChronicleStore, placeholder: Value) {
        value = placeholder
        let values = store.observe(query)
        task = Task { [weak self] in
            do {
                for try await value in values {
                    guard let self else { return }
                    self.value = value
                    if !self.isLoaded { self.isLoaded = true }
                }
            } catch {
                self?.failure = error as? ChronicleError ?? .storage(String(describing: error))
            }
        }
    }

    /// Stops following the query; ``value`` keeps the last result.
    public func stop() {
        task?.cancel()
        task = nil
    }

    isolated deinit {
        task?.cancel()
    }
}

extension LiveStoreQuery where Value: ExpressibleByArrayLiteral {
    /// Starts following a list, empty until the first read.
    public convenience init(_ query: StoreQuery<Value>, in store: ChronicleStore) {
        self.init(query, in: store, placeholder: [])
    }
}

extension LiveStoreQuery where Value: ExpressibleByNilLiteral {
    /// Starts following one entity, nil until the first read (and while unknown or deleted).
    public convenience init(_ query: StoreQuery<Value>, in store: ChronicleStore) {
        self.init(query, in: store, placeholder: nil)
    }
}

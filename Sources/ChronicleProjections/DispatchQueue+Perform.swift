import Dispatch

extension DispatchQueue {
    /// Runs blocking LMDB work on this queue, off Swift's cooperative threads.
    func perform<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            self.async { continuation.resume(with: Result { try work() }) }
        }
    }
}

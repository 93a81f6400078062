#if canImport(FoundationNetworking)
import Dispatch
import Foundation
import FoundationNetworking
import Synchronization

/// Cancels a FoundationNetworking request from a task's cancellation handler without calling
/// into the session there (see ``URLSessionTransport/data(_:for:)``): the call is made on
/// another queue, and a cancellation that comes before the request started cancels it as
/// soon as it starts.
final class RequestCancellation: Sendable {
    private enum State {
        case waiting
        case started(URLSessionTask)
        case cancelled
    }

    private let state = Mutex<State>(.waiting)

    /// The request is made: cancel it at once if the cancellation came first.
    func started(_ task: URLSessionTask) {
        let cancelledFirst = state.withLock { state -> Bool in
            guard case .waiting = state else { return true }
            state = .started(task)
            return false
        }
        if cancelledFirst { Self.cancelLater(task) }
    }

    /// Cancels the request (on another queue), or marks it to be cancelled when it starts.
    func cancel() {
        let task = state.withLock { state -> URLSessionTask? in
            defer { state = .cancelled }
            guard case .started(let task) = state else { return nil }
            return task
        }
        if let task { Self.cancelLater(task) }
    }

    private static func cancelLater(_ task: URLSessionTask) {
        DispatchQueue.global().async { task.cancel() }
    }
}
#endif

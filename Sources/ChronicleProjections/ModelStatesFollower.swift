import ChronicleLog
import Foundation
import Synchronization

/// Keeps a model's stored entities (``ModelStates``) up with the log in the background and
/// tells its ``changes()`` streams what changed: each entity a catch-up in this process
/// changed (``ReadModelChange/entity(_:_:position:)``, whichever task caught up), and
/// ``ReadModelChange/entitiesInvalidated(position:)`` when another process caught the states
/// up past what this one told, or a rebuild (in any process) swapped new states in.
///
/// ```swift
/// let follower = ModelStatesFollower(states: states)
/// let changes = follower.changes()
/// follower.start()
/// ```
public final class ModelStatesFollower: Sendable {
    /// The states followed.
    public let states: ModelStates
    private let observers = ChangeObservers()
    /// The position up to which observers were told of every change.
    private let told: Mutex<UInt64>
    /// The set of tables readers used when last looked at (a rebuild's swap changes it).
    private let slot: Mutex<Int?>
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// A follower of `states`, telling its streams of every catch-up of them in this process
    /// (its own, once started, and any other: a read's, a rebuild's).
    public init(states: ModelStates) {
        self.states = states
        let standing = try? states.standing()
        told = Mutex(standing?.position ?? 0)
        slot = Mutex(standing?.slot)
        states.onChange { [weak self] changed, after, position in self?.tell(changed, after: after, position: position) }
    }

    /// The changes from now on. Each stream buffers what its reader has not consumed yet and
    /// ends at ``stop()``.
    public func changes() -> AsyncStream<ReadModelChange> {
        observers.stream()
    }

    /// Tells what a catch-up in this process changed; first, when another process had folded
    /// past what this one told (its catch-up began further on), a re-query up to there.
    private func tell(_ changed: [(entity: String, id: UUID)], after: UInt64, position: UInt64) {
        let missed = told.withLock { told -> Bool in
            defer { told = max(told, position) }
            return after > told
        }
        guard observers.isActive else { return }
        if missed { observers.yield([.entitiesInvalidated(position: after)]) }
        observers.yield(changed.map { .entity($0.entity, $0.id, position: position) })
    }

    /// Starts following the log in a background task (calling it again does nothing).
    public func start() {
        task.withLock { running in
            guard running == nil else { return }
            running = Task.detached { [self] in await follow() }
        }
    }

    /// Stops following, after the batch being folded, and ends the ``changes()`` streams.
    public func stop() async {
        let running = task.withLock { running -> Task<Void, Never>? in
            defer { running = nil }
            return running
        }
        running?.cancel()
        await running?.value
        states.onChange(nil)
        observers.finishAll()
    }

    private func follow() async {
        while !Task.isCancelled {
            do {
                let head = try states.log.head()
                let (position, active) = try states.standing()
                let behind = told.withLock { told -> Bool in
                    defer { told = max(told, position) }
                    return position > told
                }
                let swapped = slot.withLock { slot -> Bool in
                    defer { slot = active }
                    return slot != nil && slot != active
                }
                // Folded by another process, or rebuilt: this one cannot say which entities changed.
                if behind || swapped, observers.isActive { observers.yield([.entitiesInvalidated(position: position)]) }
                if head != position {
                    // Behind, or ahead of the log (a copied store): caught up, or rebuilt.
                    try states.catchUp()
                } else {
                    _ = try await states.log.waitForHead(beyond: head, timeout: .milliseconds(250))
                }
            } catch is CancellationError {
                return
            } catch {
                // A full disk, say: try again a little later.
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}

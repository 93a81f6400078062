import ChronicleLog
import Foundation
import Synchronization

/// Keeps a declared model's stored entities (``ModelStates``) up with the log in the
/// background and tells a runner's observers what changed: each entity a catch-up in this
/// process changed (``ReadModelChange/entity(_:_:position:)``, whichever task caught up), and
/// ``ReadModelChange/entitiesInvalidated(position:)`` when another process caught the states
/// up past what this one told, or a rebuild (in any process) swapped new states in.
final class ModelStatesFollower: Sendable {
    let states: ModelStates
    private let observers: ChangeObservers
    /// The position up to which observers were told of every change.
    private let told: Mutex<UInt64>
    /// The set of tables readers used when last looked at (a rebuild's swap changes it).
    private let slot: Mutex<Int?>
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(states: ModelStates, observers: ChangeObservers) {
        self.states = states
        self.observers = observers
        let standing = try? states.standing()
        told = Mutex(standing?.position ?? 0)
        slot = Mutex(standing?.slot)
        states.onChange { [weak self] changed, position in self?.tell(changed, position: position) }
    }

    private func tell(_ changed: [(entity: String, id: UUID)], position: UInt64) {
        told.withLock { $0 = max($0, position) }
        if observers.isActive { observers.yield(changed.map { .entity($0.entity, $0.id, position: position) }) }
    }

    /// Starts following the log (calling it again does nothing).
    func start() {
        task.withLock { running in
            guard running == nil else { return }
            running = Task.detached { [self] in await follow() }
        }
    }

    /// Stops following, after the batch being folded.
    func stop() async {
        let running = task.withLock { running -> Task<Void, Never>? in
            defer { running = nil }
            return running
        }
        running?.cancel()
        await running?.value
        states.onChange(nil)
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
                if head > position {
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

extension ProjectionRunner {
    /// Also keeps `states` up with the log in the background, from now until ``stop()``,
    /// telling the ``changes()`` streams what it changes.
    public func follow(_ states: ModelStates) {
        let follower = ModelStatesFollower(states: states, observers: worker.observers)
        followers.withLock { $0.append(follower) }
        follower.start()
    }
}

import ChronicleLog
import Foundation
import Synchronization

/// Applies the log to the read models.
///
/// ```swift
/// let runner = ProjectionRunner(log: log, models: models)
/// runner.start()                                  // an app: follow the log in the background
/// let result = try await log.append(to: stream, events: [event])
/// try await runner.wait(until: result.head)       // read your writes
/// let todos = try models.todos()
///
/// try await runner.catchUp()                      // a short-lived process: apply everything now
/// ```
///
/// Events are applied in batches, one LMDB write transaction per batch holding the
/// model changes and the checkpoints together. Each checkpoint is read inside that
/// transaction and only later events are applied, so every event is applied exactly
/// once — across crashes, and with several processes (or runners) applying at once.
/// Appends never wait for projections: the runner follows the log on its own.
///
/// A model built by an older version of its projection is rebuilt in the background
/// (blue/green, see ``Rebuild``); until the swap, readers see the old model.
public final class ProjectionRunner: Sendable {
    /// The log applied.
    public let log: EventLog
    /// The models written.
    public let models: ReadModels
    let worker: ProjectionWorker
    private let background = Mutex<Task<Void, Never>?>(nil)

    /// A runner applying `log` to `models`, `batchSize` events per write transaction at most as
    /// it follows the log; a large backlog, and a rebuild of models built by another version of
    /// their projection, go in a ``Rebuild``'s larger transactions. `upgradeProgress` is told
    /// how far such a rebuild is (the first catch-up runs it: a CLI shows it on stderr).
    public convenience init(log: EventLog, models: ReadModels, batchSize: Int = 20_000,
                            upgradeProgress: @escaping @Sendable (RebuildProgress) -> Void = { _ in }) {
        self.init(log: log, models: models, batchSize: batchSize, largeTransactions: .build, upgradeProgress: upgradeProgress)
    }

    /// A runner whose backlogs and upgrades end their transactions at `largeTransactions`
    /// (tests make it small, to commit several).
    init(log: EventLog, models: ReadModels, batchSize: Int, largeTransactions: TransactionBound,
         upgradeProgress: @escaping @Sendable (RebuildProgress) -> Void = { _ in }) {
        self.log = log
        self.models = models
        self.worker = ProjectionWorker(log: log, models: models, batchSize: max(1, batchSize), largeTransactions: largeTransactions,
                                       upgradeProgress: upgradeProgress)
    }

    deinit {
        background.withLock { $0?.cancel() }
    }

    /// Starts following the log in a background task (catch-up, then live). Calling it again does nothing.
    ///
    /// Errors (a full disk, say) are retried with backoff; ``lastError`` tells the latest.
    public func start() {
        background.withLock { task in
            guard task == nil else { return }
            let worker = self.worker
            task = Task.detached { await worker.runInBackground() }
        }
    }

    /// Stops the background task (after the batch it is writing) and ends the ``changes()`` streams.
    public func stop() async {
        let task = background.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
        worker.observers.finishAll()
    }

    /// Applies everything appended so far (by any process) now; returns the checkpoint reached.
    ///
    /// Short-lived processes such as the CLI call this instead of ``start()``. Models that
    /// need a version upgrade are rebuilt first.
    @discardableResult
    public func catchUp() async throws -> UInt64 {
        try await worker.catchUp()
    }

    /// Returns once every projection includes `position` (read your writes).
    ///
    /// Works whichever process appended or applies: it applies what is in the log itself
    /// rather than waiting for the background task, and when `position` is not in the log
    /// yet it waits for the log to grow. Cancel the calling task to give up.
    public func wait(until position: UInt64) async throws {
        while try models.checkpoint() < position {
            try Task.checkCancellation()
            let head = try log.head()
            if head >= position {
                _ = try await worker.catchUp()
            } else {
                _ = try await log.waitForHead(beyond: head, timeout: .milliseconds(250))
            }
        }
    }

    /// The changes of the models from now on, as this runner applies them.
    ///
    /// Each value is `Sendable`; the stream buffers what its reader has not consumed yet
    /// and ends at ``stop()``. Changes applied by another process, and rebuilds, arrive as
    /// ``ReadModelChange/invalidated(_:position:)``.
    public func changes() -> AsyncStream<ReadModelChange> {
        worker.observers.stream()
    }

    /// Why the background task last failed, while it retries (nil when healthy).
    public var lastError: String? {
        worker.lastError.withLock { $0 }
    }
}

import ChronicleSchema
import ChronicleTodoModel
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import ChronicleProjections
import Synchronization

/// The backing store of an offline-first app: users and todos, kept as an event log on
/// disk, with read models that follow the log in the background.
///
/// ```swift
/// let store = try ChronicleStore(directory: appSupport.appending(path: "chronicle").path)
/// let ada = try await store.createUser(name: "Ada", age: 36)
/// let todo = try await store.createTodo(title: "Write notes", deadline: "2026-12-01", userId: ada.id)
/// try await store.completeTodo(todo.id)
/// let today = try await store.stats(from: "2026-12-01", to: "2026-12-01")
/// ```
///
/// Every method returns plain `Sendable` values, fully decoded before any storage
/// transaction ends. Calls from many tasks at once are safe: each command reads its
/// entity's stream, decides, and appends with the stream's expected version; on a
/// conflict it reads again and decides once more. Reads see everything in the log when they
/// begin: this store's own writes, pulled events, other processes' appends.
/// Rules that span entities (a todo's user must be live, tag names are unique) are part of
/// each append's condition (`AppendKey`), so they hold against every process writing the store.
public final class ChronicleStore: Sendable {
    // The parts, for tools that operate a store (the CLI, tests): `@_spi(Operator) import
    // Chronicle` reaches them. An app does not: the log's raw appends skip every domain rule,
    // and the store's own methods cover reading, auditing and maintaining it.

    /// The append-only log.
    @_spi(Operator) public let log: EventLog
    /// The read model: the model's entities, their indexes and aggregates' rows, stored
    /// (`entities/`) and kept up with the log.
    @_spi(Operator) public let entityStates: ModelStates
    /// Keeps ``entityStates`` up with the log in the background and tells ``changes()``.
    let follower: ModelStatesFollower
    /// The store's folder.
    public let directory: String
    /// The model the store was opened with, recorded in it (`ChronicleModel`; see <doc:DeclaringYourModel>).
    public let model: ChronicleModel
    /// Whether `model` is the todo app's, which its own commands and undo serve; any other
    /// model is served by the generic ones (compared once, at open).
    let isTodoAppModel: Bool
    /// Reads events by `model`: made once, for every decision.
    let eventReader: ChronicleModel.EventReader
    let lastAppended = Mutex<UInt64>(0)
    /// Told how far the first catch-up of stored entities that are behind the log from the
    /// start is (after an upgrade); nil once it ran, or when there is none.
    let upgradeProgress: Mutex<(@Sendable (RebuildProgress) -> Void)?>
    private let isClosed = Mutex(false)

    /// Opens (creating when missing) the store in `directory` and starts following its log.
    ///
    /// - parameters:
    ///   - directory: the store folder; it holds `log/` and `entities/`.
    ///   - backgroundProjections: `false` leaves the stored entities to catch up when read, or
    ///     at ``refresh()`` (short-lived processes such as the CLI).
    ///   - logOptions: how the log is opened (`noSync` for throwaway stores in tests only).
    ///   - upgradeProgress: told how far a catch-up of the stored entities from far behind is
    ///     (the first read after an upgrade of Chronicle that changed how they are stored, or
    ///     of a store written before they were).
    ///   - model: the app's model, recorded in the store: the todo app's by default, which the
    ///     typed commands serve; any model's entities are served by ``create(_:_:id:)``,
    ///     ``entities(_:)->[ChronicleModel.EntityState]`` and the other generic commands and reads.
    /// - throws: ``ChronicleError/notAStore(path:reason:)`` for a folder that holds something
    ///   else (see ``StoreFolder``); otherwise when the store cannot be opened (damaged, newer
    ///   format, no access, another app's model or this version of it recorded otherwise).
    public init(directory: String, backgroundProjections: Bool = true, logOptions: EventLogOptions = .init(),
                upgradeProgress: @escaping @Sendable (RebuildProgress) -> Void = { _ in },
                model: ChronicleModel = TodoAppModel.model) throws {
        try StoreFolder.prepare(directory)
        self.directory = directory
        self.model = model
        isTodoAppModel = model == TodoAppModel.model
        eventReader = ChronicleModel.EventReader(model)
        let log = try ChronicleError.mapping { try EventLog(path: directory + "/log", options: logOptions) }
        do {
            try ModelRecording.record(model, in: log, path: directory)
            entityStates = try ModelStates(path: directory + "/entities", model: model, log: log, noSync: log.options.noSync)
        } catch {
            log.close()
            throw ChronicleError(error)
        }
        self.log = log
        // Never folded, beside a log that holds events: written before the entities were
        // stored, or by a version that stored them otherwise (their tables were emptied).
        let upgrading = (try? entityStates.position() == 0 && log.head() > 0) ?? false
        self.upgradeProgress = Mutex(upgrading ? upgradeProgress : nil)
        follower = ModelStatesFollower(states: entityStates)
        if backgroundProjections { follower.start() }
    }

    /// Stops following the log and the log's writer. Every later command and read throws
    /// ``ChronicleError/closed``.
    public func close() async {
        isClosed.withLock { $0 = true }
        await follower.stop()
        log.close()
    }

    /// Throws ``ChronicleError/closed`` once ``close()`` has begun.
    func requireOpen() throws(ChronicleError) {
        if isClosed.withLock({ $0 }) { throw .closed }
    }

    /// Brings the stored entities up to the log's head now (including other processes'
    /// appends); returns the position they reached.
    @discardableResult
    public func refresh() async throws -> UInt64 {
        try requireOpen()
        return try ChronicleError.mapping { try caughtUpEntityStates().position() }
    }

    /// Observes changes of the stored entities (what a view model subscribes to): each
    /// entity changed by this process's catch-ups (its writes, pulls), and a re-query
    /// (`ReadModelChange.entitiesInvalidated`) after another process's catch-up or a rebuild.
    /// ``observe(_:)`` builds on it.
    public func changes() -> AsyncStream<ReadModelChange> {
        follower.changes()
    }

    // MARK: - Appending

    /// How many times a command decides before a run of conflicts makes it give up.
    static let maxDecisions = 12

    /// A random wait below 0.5 ms × 2^(attempt-1), capped at 32 ms, so that deciders who
    /// keep colliding spread out.
    static func backoff(afterAttempt attempt: Int) -> Duration {
        let bound = min(32_000, 500 << min(attempt - 1, 6))
        return .microseconds(Int.random(in: 0...bound))
    }
}

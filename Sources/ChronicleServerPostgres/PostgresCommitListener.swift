import Logging
import PostgresNIO
import Synchronization
import ChronicleServer
/// One connection of its own, outside the pool, that `LISTEN`s on ``channel`` and passes
/// each notification (a tenant's name, sent by a push's transaction as it commits, by any
/// server on the database) to the server's waiting pulls.
///
/// Notifications are hints. One sent while the connection is down is lost: when it is back
/// and listening again, the listener says ``CommitNotice/anyTenant`` so that every waiting
/// pull reads again, and a pull reads once more when its wait ends anyway. A lost
/// notification therefore delays a pull by at most its wait, never makes it skip an event.
final class PostgresCommitListener: Sendable {
    /// The channel pushes notify and servers listen on.
    static let channel = "chronicle_events"
    /// How long to wait before connecting again after the connection failed or was lost.
    static let reconnectPause = Duration.seconds(1)

    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Connects and listens in the background until ``stop()``, reconnecting after any failure.
    func start(_ configuration: PostgresConnection.Configuration, logger: Logger,
               observer: @escaping @Sendable (CommitNotice) -> Void) {
        let listening = Task {
            while !Task.isCancelled {
                do {
                    try await Self.listen(configuration, logger: logger, observer: observer)
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("lost the connection listening for commits; connecting again",
                                   metadata: ["error": "\(String(reflecting: error).prefix(500))"])
                }
                try? await Task.sleep(for: Self.reconnectPause)
            }
        }
        task.withLock { $0 = listening }
    }

    /// Stops listening and closes the connection.
    func stop() async {
        let listening = task.withLock { task in
            defer { task = nil }
            return task
        }
        listening?.cancel()
        await listening?.value
    }

    private static func listen(_ configuration: PostgresConnection.Configuration, logger: Logger,
                               observer: @escaping @Sendable (CommitNotice) -> Void) async throws {
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        do {
            try await connection.listen(on: channel) { notifications in
                // What was sent while no connection listened is lost: every waiter reads again.
                observer(.anyTenant)
                for try await notification in notifications { observer(.tenant(notification.payload)) }
            }
        } catch {
            try? await connection.close()
            throw error
        }
        try? await connection.close()
        try Task.checkCancellation()
    }
}

import Synchronization

/// One storage read of a page, shared by the woken pulls that ask for the same page at once.
///
/// A commit wakes every pull of its tenant waiting on this server (``TenantWaiters``), and
/// they mostly wait at the same position: a thousand devices idle at the head. Each reading
/// the storage for itself makes a thousand identical reads (a thousand queries on
/// PostgreSQL) before the last device hears of the commit. Here the first starts the read and
/// the others with the same tenant, position and limit take its page.
///
/// A pull joins only a read that began at the waiters' current ``TenantWaiters/generation``:
/// after every notification so far, the one that woke it included. So a shared page is never
/// older than the commit a pull was woken for; a commit notified during the read raises the
/// generation, and the pulls it wakes start a read of their own.
final class SharedPageReads: Sendable {
    /// The page asked for.
    struct Key: Hashable, Sendable {
        let tenant: String
        let after: UInt64
        let limit: Int
    }

    private struct Flight {
        let generation: UInt64
        let task: Task<EventPage, any Error>
    }

    private let flights = Mutex<[Key: Flight]>([:])

    /// The page `key` names, from a read begun at `generation` or later: one under way, or
    /// one `read` starts now. The read runs on even if the pull that started it goes away.
    func page(_ key: Key, generation: UInt64,
              read: @escaping @Sendable () async throws -> EventPage) async throws -> EventPage {
        let task = flights.withLock { flights -> Task<EventPage, any Error> in
            if let flight = flights[key], flight.generation >= generation { return flight.task }
            let task = Task { try await read() }
            flights[key] = Flight(generation: generation, task: task)
            return task
        }
        defer {
            flights.withLock { flights in
                if flights[key]?.task == task { flights[key] = nil }
            }
        }
        return try await task.value
    }
}

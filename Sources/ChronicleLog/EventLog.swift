import Foundation
import ChronicleLMDB

/// The append-only event log: an LMDB environment on disk holding every event once,
/// in a global, gap-free order, with a tamper-evident hash chain.
///
/// ```swift
/// let log = try EventLog(path: "/var/lib/app/log")
/// let result = try await log.append(to: "todo-42", expected: .noStream, events: [
///     NewEvent(type: "TodoCreated", data: Data(#"{"title":"Milk","deadline":"2026-12-01"}"#.utf8))
/// ])
/// for event in try log.read(after: 0, limit: 100) { print(event.position, event.type) }
/// ```
///
/// An append that returned is on disk (one fsync per group commit). Appends from many
/// tasks are queued to one writer thread and committed together, so no caller's thread
/// ever blocks on LMDB's write lock; several processes may share one store.
public final class EventLog: Sendable {
    /// How to open a log (``EventLogOptions``, which `import Chronicle` names without the log).
    public typealias Options = EventLogOptions

    /// The LMDB environment; other modules keep their own named databases in it (sync state).
    public let environment: Environment
    /// The id of this replica, created once per store; stamped as every local event's origin.
    public let deviceID: String
    /// Where the log lives.
    public let path: String
    /// How the log was opened.
    public let options: Options
    let databases: LogDatabases
    let streamIndex: StreamIndex
    let touchIndex: TouchIndex
    let headSignal = HeadSignal()
    let writer: AppendWriter
    /// What ``firstOwnPositions(inStreams:before:)`` found, so that it reads each record once.
    let ownWrites = OwnWrites()

    /// Opens the log at `path` (a directory), creating it when missing.
    ///
    /// - throws: ``EventLogError/newerFormat(found:supported:)`` for a store written by a
    ///   newer Chronicle, ``EventLogError/cannotOpen(path:reason:)`` when LMDB refuses it,
    ///   ``EventLogError/corruptRecord(position:reason:)`` when `checkHeadOnOpen` finds damage.
    public init(path: String, options: Options = Options()) throws(EventLogError) {
        let environment: Environment
        do {
            environment = try Environment(path: path, options: .init(mapSize: options.initialMapSize, noSync: options.noSync))
        } catch {
            throw .cannotOpen(path: path, reason: error.description)
        }
        let (databases, deviceID) = try LogDatabases.open(in: environment)
        if options.checkHeadOnOpen {
            // Before the writer thread exists: a refused store gets no thread and no write.
            try Self.checkHead(environment, databases)
        }
        self.environment = environment
        self.databases = databases
        self.deviceID = deviceID
        self.path = path
        self.options = options
        self.streamIndex = StreamIndex(databases: databases, checkpointEvents: options.streamIndexCheckpoint)
        self.touchIndex = TouchIndex(databases: databases)
        self.writer = AppendWriter(environment: environment, streamIndex: streamIndex, touchIndex: touchIndex, deviceID: deviceID,
                                   maxGroupEvents: options.maxGroupEvents)
        let signal = headSignal
        writer.onCommit = { signal.publish() }
        writer.start()
    }

    deinit { writer.stop() }

    /// Stops the writer thread after the queued appends and waits for it to end; later appends
    /// fail with ``EventLogError/closed``. Once the log is also released, its LMDB environment
    /// is closed and the store may be opened again in this process.
    public func close() { writer.stopAndWait() }

    /// Runs `body` in a read transaction, mapping LMDB errors.
    func withRead<T>(_ body: (Transaction) throws -> T) throws -> T {
        do {
            return try environment.read { txn in try body(txn) }
        } catch let error as LMDBError {
            throw EventLogError.storage(error)
        }
    }

    // MARK: - Reads

    /// The last position (0 for an empty log).
    public func head() throws -> UInt64 {
        try withRead { txn in try databases.headPosition(txn) }
    }

    /// Up to `limit` events after `position`, in order, and no more of them than fit in
    /// `maxBytes` bytes of data (but always the first one there is), so that a reader of
    /// large events holds a bounded amount of memory.
    public func read(after position: UInt64 = 0, limit: Int = 1000, maxBytes: Int = .max) throws -> [RecordedEvent] {
        var events: [RecordedEvent] = []
        events.reserveCapacity(min(limit, 4096))
        try visit(after: position, limit: limit, maxBytes: maxBytes) { events.append($0.recorded()) }
        return events
    }

    /// The events ``read(after:limit:maxBytes:)`` reads, checked the same way, but copied out as
    /// they are stored, side by side (``StoredRecords``): for a reader that decodes them later,
    /// elsewhere than in the read transaction, and needs few of their fields.
    public func readStored(after position: UInt64, limit: Int, maxBytes: Int = .max) throws -> StoredRecords {
        var stored = StoredRecords()
        try visit(after: position, limit: limit, maxBytes: maxBytes) { stored.append($0) }
        return stored
    }

    /// Hands `body` each event of ``read(after:limit:maxBytes:)`` in place, in one read transaction.
    private func visit(after position: UInt64, limit: Int, maxBytes: Int, _ body: (RecordView) -> Void) throws {
        guard position < .max else { return }   // nothing follows the last possible position
        try withRead { txn in
            var (count, bytes) = (0, 0)
            var expected = position &+ 1
            try txn.withCursor(databases.events) { cursor in
                var entry = try cursor.seek(atLeast: Keys.position(expected))
                while let current = entry, count < limit {
                    let view = try databases.view(current)
                    // Positions are gap-free: a key damaged into one out of the way (a flipped
                    // bit can make position 1 a 0) would otherwise drop its event unseen.
                    guard view.position == expected else {
                        throw EventLogError.corruptRecord(position: expected, reason: "position \(expected) is missing (the next stored is \(view.position))")
                    }
                    expected += 1
                    bytes += view.data.count
                    if bytes > maxBytes && count > 0 { break }
                    body(view)
                    count += 1
                    entry = try cursor.next()
                }
            }
        }
    }

    /// Visits the events after `position` in chunks of up to `chunk` events and
    /// ``defaultBatchBytes`` of their data (one short read transaction each, so the whole log is
    /// never in memory and no transaction stays open while `body` runs). Returns the last
    /// position seen.
    @discardableResult
    public func scan(after position: UInt64, chunk: Int = 4096,
                     _ body: (RecordedEvent) throws -> Void) throws -> UInt64 {
        var last = position
        while true {
            let batch = try read(after: last, limit: chunk, maxBytes: Self.defaultBatchBytes)
            for event in batch { try body(event) }
            guard let tail = batch.last else { return last }
            last = tail.position
        }
    }

    /// The event at `position`, or `nil`.
    public func event(at position: UInt64) throws -> RecordedEvent? {
        try withRead { txn in
            try txn.get(databases.events, key: Keys.position(position)).map { value in
                try databases.decode(value, position: position)
            }
        }
    }

    /// The event with `id`, or `nil`.
    public func event(id: UUID) throws -> RecordedEvent? {
        let position: UInt64? = try withRead { txn in
            try txn.get(databases.ids, key: Keys.id(id)).map { try $0.storedBigEndian(UInt64.self, "an ids value") }
        }
        return try position.flatMap { try event(at: $0) }
    }

    /// The events of `stream` with a version above `version`, in order, up to `limit`.
    public func read(stream: String, afterVersion version: UInt64 = 0, limit: Int = .max) throws -> [RecordedEvent] {
        try withRead { txn in
            try streamIndex.positions(of: stream, afterVersion: version, limit: limit, txn).map { position in
                guard let value = try txn.get(databases.events, key: Keys.position(position)) else {
                    throw EventLogError.corruptRecord(position: position, reason: "stream index points to a missing event")
                }
                return try databases.decode(value, position: position)
            }
        }
    }

    /// The last version of `stream` (0 when it does not exist).
    public func version(of stream: String) throws -> UInt64 {
        try withRead { txn in
            try txn.withCursor(databases.streams) { streams in
                try streamIndex.version(of: StreamName(stream), in: try streamIndex.snapshot(txn), txn, streams: streams)
            }
        }
    }

    /// The version `stream` had when the log's head was `position`: how many of its events
    /// lie at or before it (0 when none). What a decision read at `position` expects.
    public func version(of stream: String, asOf position: UInt64) throws -> UInt64 {
        try withRead { txn in
            let current = try txn.withCursor(databases.streams) { streams in
                try streamIndex.version(of: StreamName(stream), in: try streamIndex.snapshot(txn), txn, streams: streams)
            }
            guard current > 0 else { return 0 }
            // Usually nothing was appended to the stream since: its last event is before `position`.
            if let last = try streamIndex.positions(of: stream, afterVersion: current - 1, limit: 1, txn).first, last <= position {
                return current
            }
            return UInt64(try streamIndex.positions(of: stream, afterVersion: 0, limit: .max, txn).count { $0 <= position })
        }
    }

    /// Up to `limit` events of type `type` after `position`, scanning forward in chunks.
    public func read(type: String, after position: UInt64 = 0, limit: Int = 1000) throws -> [RecordedEvent] {
        var found: [RecordedEvent] = []
        var cursorPosition = position
        while found.count < limit, cursorPosition < .max {
            let (matches, last, exhausted) = try withRead { txn -> ([RecordedEvent], UInt64, Bool) in
                var matches: [RecordedEvent] = []
                var last = cursorPosition
                var seen = 0
                var exhausted = true
                try txn.withCursor(databases.events) { cursor in
                    var entry = try cursor.seek(atLeast: Keys.position(cursorPosition &+ 1))
                    while let current = entry {
                        last = try current.key.storedBigEndian(UInt64.self, "an events key")
                        if (try? RecordCodec.decodeType(current.value)) == type {
                            matches.append(try databases.decode(current))
                            if found.count + matches.count >= limit { exhausted = false; break }
                        }
                        seen += 1
                        if seen >= 50_000 { exhausted = false; break }
                        entry = try cursor.next()
                    }
                }
                return (matches, last, exhausted)
            }
            found += matches
            cursorPosition = last
            if exhausted { break }
        }
        return found
    }

    // MARK: - Live

    /// The most bytes of event data a subscription reads at a time unless told otherwise
    /// (always one event at least): what bounds its memory whatever the events' sizes.
    public static let defaultBatchBytes = 8 << 20

    /// Every event after `position`, then each new one as it lands. See ``LogTail``.
    public func subscribe(after position: UInt64 = 0, batchSize: Int = 512) -> LogTail {
        LogTail(log: self, start: position, batchSize: batchSize)
    }

    /// Like ``subscribe(after:batchSize:)``, in batches of up to `batchSize` events and `maxBytes`
    /// bytes of their data (one event at least).
    public func subscribeBatches(after position: UInt64 = 0, batchSize: Int = 1000,
                                 maxBytes: Int = defaultBatchBytes) -> LogBatchTail {
        LogBatchTail(log: self, start: position, batchSize: batchSize, maxBytes: maxBytes)
    }

    /// Returns once the head is past `position` or `timeout` elapsed (whichever first); returns the head.
    public func waitForHead(beyond position: UInt64, timeout: Duration) async throws -> UInt64 {
        let deadline = ContinuousClock.now + timeout
        while true {
            let generation = headSignal.generation
            let current = try head()
            if current > position || ContinuousClock.now >= deadline || Task.isCancelled { return current }
            await headSignal.wait(after: generation, timeout: min(options.pollInterval, deadline - ContinuousClock.now))
        }
    }
}

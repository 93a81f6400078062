import Foundation
import ChronicleLMDB

/// The log's single writer thread: it drains the queue of waiting appends and commits
/// them together in one LMDB write transaction (group commit), so many appenders share
/// one fsync and none of them blocks its own thread on LMDB's write lock.
///
/// Each job in a group is checked in full (expected versions, ids, payloads) before it
/// writes anything, so a refused job leaves no trace while the others commit.
final class AppendWriter: @unchecked Sendable {
    // Thread rules: `queue` and `running` are guarded by `condition`; the LMDB write
    // transaction lives on `thread` only, inside one `Environment.write` call.
    private let environment: Environment
    private let databases: LogDatabases
    private let streamIndex: StreamIndex
    private let touchIndex: TouchIndex
    private let deviceID: String
    private let maxGroupEvents: Int
    private let condition = NSCondition()
    private var queue: [Job] = []
    private var running = false
    private var stopped = false
    private var thread: Thread?
    /// Whether a group committed (the writer thread's own: read and written only there).
    private var committedAny = false
    /// How many jobs the last group held, and how long it took to commit (the writer thread's own).
    private var lastGroup = (jobs: 0, seconds: 0.0)
    /// Signalled once the writer thread no longer uses (or holds) this writer.
    private let exited = DispatchSemaphore(value: 0)
    /// Called after each successful commit (set before `start`).
    var onCommit: @Sendable () -> Void = {}

    enum Job {
        case append([StreamAppend], [AppendKey], [UInt8]?, CheckedContinuation<AppendResult, any Error>)
        case ingest([ForeignEvent], [AppendKey], CheckedContinuation<IngestResult, any Error>)

        var eventCount: Int {
            switch self {
            case .append(let appends, _, _, _): appends.eventCount
            case .ingest(let events, _, _): events.count
            }
        }

        func fail(_ error: any Error) {
            switch self {
            case .append(_, _, _, let continuation): continuation.resume(throwing: error)
            case .ingest(_, _, let continuation): continuation.resume(throwing: error)
            }
        }
    }

    init(environment: Environment, streamIndex: StreamIndex, touchIndex: TouchIndex, deviceID: String, maxGroupEvents: Int) {
        self.environment = environment
        self.databases = streamIndex.databases
        self.streamIndex = streamIndex
        self.touchIndex = touchIndex
        self.deviceID = deviceID
        self.maxGroupEvents = maxGroupEvents
    }

    func start() {
        condition.lock()
        defer { condition.unlock() }
        guard !running, !stopped else { return }
        running = true
        // Weak, so the thread holds the writer (and its environment) only while `run` runs:
        // a strong capture would keep both alive forever through `self.thread`.
        let exited = self.exited
        let thread = Thread { [weak self] in
            self?.run()
            exited.signal()
        }
        thread.name = "chronicle-log-writer"
        thread.stackSize = 1 << 20
        self.thread = thread
        thread.start()
    }

    /// Lets the queued jobs finish, then ends the thread. Later jobs fail with `.closed`.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// ``stop()``, then waits until the writer thread has committed the queued jobs and let go
    /// of the writer, so the environment closes as soon as its other owners release it.
    /// Must not be called on the writer thread.
    func stopAndWait() {
        condition.lock()
        stopped = true
        let started = thread != nil
        condition.broadcast()
        condition.unlock()
        guard started else { return }
        exited.wait()
        exited.signal()   // for any later or concurrent caller
    }

    func submit(_ job: Job) {
        condition.lock()
        if stopped {
            condition.unlock()
            job.fail(EventLogError.closed)
            return
        }
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopped { condition.wait() }
            if queue.isEmpty && stopped {
                running = false
                condition.unlock()
                if committedAny { checkpointAtClose() }
                return
            }
            waitForTheLastGroupsAppenders()
            var group: [Job] = []
            var count = 0
            while let job = queue.first, group.isEmpty || count + job.eventCount <= maxGroupEvents {
                group.append(queue.removeFirst())
                count += job.eventCount
            }
            condition.unlock()
            let started = ContinuousClock.now
            commit(group)
            let took = ContinuousClock.now - started
            lastGroup = (group.count, Double(took.components.seconds) + Double(took.components.attoseconds) * 1e-18)
        }
    }

    /// Appenders that each await their append come back one by one after a commit; a group
    /// begun at the first would commit it alone while the others queue for the next commit. So
    /// when fewer jobs are queued than the last group held, this waits for as many, up to a
    /// quarter of the last commit's time (a delay sized by the commit it may save, as
    /// PostgreSQL's `commit_delay` when other transactions are active). A lone appender, whose
    /// last group held its one job, never waits. Called with `condition` locked.
    private func waitForTheLastGroupsAppenders() {
        guard !stopped, queue.count < lastGroup.jobs else { return }
        let deadline = Date(timeIntervalSinceNow: lastGroup.seconds / 4)
        while !stopped, queue.count < lastGroup.jobs, condition.wait(until: deadline) {}
    }

    /// A log that this process wrote to finishes the stream index's merge as it closes, and
    /// merges the events after the checkpoint when enough follow it, a transaction per slice
    /// (``StreamIndex/advanceMerge(head:after:closing:_:)``). Only a saving for the next opening:
    /// if it fails, that opening reads the events again, as it would have.
    private func checkpointAtClose() {
        while true {
            var step: StreamIndex.MergeStep?
            do {
                try environment.write { txn in
                    let snapshot = try streamIndex.beginWrite(txn)
                    step = try advanceCheckpoints(head: snapshot.head, after: snapshot, closing: true, txn)
                }
            } catch {
                streamIndex.discardWrites()
                return
            }
            guard let step else { return }
            streamIndex.committed(step)
        }
    }

    /// Moves the indexes' checkpoints along in the writer's transaction, after its events
    /// (through `head`): the stream index's merge, and the touches' checkpoint to `head` when a
    /// merge starts there.
    private func advanceCheckpoints(head: UInt64, after snapshot: StreamIndex.Snapshot, closing: Bool = false,
                                    _ txn: Transaction) throws -> StreamIndex.MergeStep? {
        let step = try streamIndex.advanceMerge(head: head, after: snapshot, closing: closing, txn)
        if step?.started == true { try touchIndex.checkpoint(through: head, txn) }
        return step
    }

    // MARK: - One group commit

    /// What one write transaction has written so far: the chain's last link, and the group's
    /// touches (its events' stream entries are in the stream index's tail, where until they
    /// commit only this writer sees them).
    private struct GroupState {
        let snapshot: StreamIndex.Snapshot
        /// What the key conditions are judged on (the group's own touches are in `touches`).
        let touchSnapshot: TouchIndex.Snapshot
        var link: (position: UInt64, hash: ChainHash)
        /// The record being written: one array for the group's records, its memory reused.
        var record: [UInt8] = []
        /// The cursors the group writes events and ids through, and reads stream versions with.
        var cursors: WriteCursors
        /// `meta["first-own"]` as the transaction sees it (nil: a store that predates it).
        var firstOwn: UInt64?
        /// The keys the group's appends touched, written once each at the end of the group.
        var touches = KeyConditions.Touches()
    }

    private enum Outcome {
        case appended(AppendResult)
        case ingested(IngestResult)
        case refused(any Error)
    }

    private func commit(_ group: [Job]) {
        var outcomes: [Outcome] = []
        var step: StreamIndex.MergeStep?
        do {
            try environment.write { txn in
                outcomes = []   // the closure reruns from scratch after the map grows
                let snapshot = try streamIndex.beginWrite(txn)
                let link = try databases.headLink(txn)
                let firstOwn = try databases.firstOwnPosition(txn)
                let touchSnapshot = TouchIndex.Snapshot(checkpoint: try databases.touchesIndexedThrough(txn), head: snapshot.head)
                let head = try WriteCursors.with(databases, txn) { cursors in
                    var state = GroupState(snapshot: snapshot, touchSnapshot: touchSnapshot, link: link, cursors: cursors,
                                           firstOwn: firstOwn)
                    for job in group {
                        do {
                            switch job {
                            case .append(let appends, let keys, let note, _):
                                outcomes.append(.appended(try append(appends, keys: keys, note: note, txn, &state)))
                            case .ingest(let events, let keys, _):
                                outcomes.append(.ingested(try ingest(events, keys: keys, txn, &state)))
                            }
                        } catch let error as EventLogError {
                            outcomes.append(.refused(error))
                        }
                    }
                    try state.touches.write(databases, txn)
                    return state.link.position
                }
                step = try advanceCheckpoints(head: head, after: snapshot, txn)
            }
        } catch {
            streamIndex.discardWrites()
            let failure = (error as? LMDBError).map(EventLogError.storage) ?? error
            for job in group { job.fail(failure) }
            return
        }
        streamIndex.committed(step)
        committedAny = true
        onCommit()
        for (job, outcome) in zip(group, outcomes) {
            switch (job, outcome) {
            case (.append(_, _, _, let continuation), .appended(let result)): continuation.resume(returning: result)
            case (.ingest(_, _, let continuation), .ingested(let result)): continuation.resume(returning: result)
            case (_, .refused(let error)): job.fail(error)
            default: job.fail(EventLogError.invalidEvent("internal: mismatched outcome"))
            }
        }
    }

    /// Checks, then writes, one atomic batch of local events.
    ///
    /// Every check (ids, expected versions, key conditions) reads the transaction, which
    /// already holds the earlier jobs of this group: a job is judged after them, as if it
    /// had committed alone, and its refusal writes nothing.
    private func append(_ appends: [StreamAppend], keys: [AppendKey], note: [UInt8]?, _ txn: Transaction,
                        _ state: inout GroupState) throws -> AppendResult {
        // 1. Validate and find duplicates; nothing is written until every check passed.
        // Sized for the batch up front: grown from empty, the tables rehashed every id at each doubling.
        let count = appends.eventCount
        var positions: [UInt64?] = []
        positions.reserveCapacity(count)
        var firstIndexOfID: [UUID: Int] = Dictionary(minimumCapacity: count)
        var repeats = false
        // How many new events each append brings (not stored yet, not repeating an id before it in the batch).
        var newEvents = [Int](repeating: 0, count: appends.count)
        // Events are read where they lie (`appends[a].events[e].type`): a copy of each (its
        // type and data retained, then released) cost more than the checks.
        for a in appends.indices {
            try EventLogError.validating { () throws(EventValidationError) in try EventValidation.check(stream: appends[a].stream) }
            for e in appends[a].events.indices {
                let id = appends[a].events[e].id
                try EventLogError.validating { () throws(EventValidationError) in
                    try EventValidation.check(type: appends[a].events[e].type, data: appends[a].events[e].data)
                    try EventValidation.check(schemaVersion: appends[a].events[e].schemaVersion)
                }
                if let index = firstIndexOfID.updateValue(positions.count, forKey: id) {
                    repeats = true
                    positions.append(positions[index])   // same id twice in one batch: one event
                    continue
                }
                let stored = try state.cursors.storedPosition(of: id)
                if stored == nil { newEvents[a] += 1 }
                positions.append(stored)
            }
        }
        let isRetry = !positions.isEmpty && positions.allSatisfy { $0 != nil }
        if isRetry {
            return AppendResult(positions: positions.map { $0! }, appended: 0, head: state.link.position)
        }
        let names = appends.map { StreamName($0.stream) }   // each stream's name hashed once
        // Each stream's version, looked up at its first append in the batch: `versions[slots[a]]`
        // is append `a`'s stream's, so writing needs no table lookup. Each append's expected
        // version is judged as if the batch's earlier appends had been written: on the stream's
        // version plus their new events (`reached`).
        var slotOfStream: [StreamName: Int] = Dictionary(minimumCapacity: appends.count)
        var slots: [Int] = []
        slots.reserveCapacity(appends.count)
        var versions: [UInt64] = [], reached: [UInt64] = []
        versions.reserveCapacity(appends.count)
        reached.reserveCapacity(appends.count)
        for a in appends.indices {
            let slot: Int
            if let known = slotOfStream[names[a]] {
                slot = known
            } else {
                slot = versions.count
                let version = try streamIndex.version(of: names[a], in: .init(checkpoint: state.snapshot.checkpoint, head: state.link.position),
                                                      txn, streams: state.cursors.streams, ownWrites: true)
                slotOfStream[names[a]] = slot
                versions.append(version)
                reached.append(version)
            }
            guard appends[a].expected.isSatisfied(byActual: reached[slot]) else {
                throw EventLogError.conflict(stream: appends[a].stream, expected: appends[a].expected, actual: reached[slot])
            }
            slots.append(slot)
            reached[slot] += UInt64(newEvents[a])
        }
        try KeyConditions.check(keys, state.touches, touchIndex, state.touchSnapshot, databases, txn)
        // 2. Write.
        // The positions of ids written in this batch, only needed when an id repeats in it.
        var written: [UUID: UInt64] = Dictionary(minimumCapacity: repeats ? count : 0)
        var index = 0
        var appended = 0
        for a in appends.indices {
            for e in appends[a].events.indices {
                defer { index += 1 }
                if positions[index] != nil { continue }
                let id = appends[a].events[e].id
                if repeats, let position = written[id] { positions[index] = position; continue }
                versions[slots[a]] += 1
                let position = state.link.position + 1
                let milliseconds = Int64((appends[a].events[e].timestamp.timeIntervalSince1970 * 1000).rounded(.down))
                try write(position: position, id: id, stream: names[a], version: versions[slots[a]],
                          type: appends[a].events[e].type, schemaVersion: appends[a].events[e].schemaVersion,
                          timestampMilliseconds: milliseconds, origin: deviceID, data: appends[a].events[e].data, txn, &state)
                if repeats { written[id] = position }
                positions[index] = position
                appended += 1
            }
        }
        if appended > 0 {
            try KeyConditions.apply(keys, at: state.link.position, &state.touches, databases, txn)
            if let note {
                let first = state.link.position - UInt64(appended) + 1
                try txn.put(databases.notes, key: Keys.position(first), value: Keys.position(state.link.position) + note)
            }
        }
        return AppendResult(positions: positions.map { $0! }, appended: appended, head: state.link.position)
    }

    /// Stores events created elsewhere (a sync server receiving a push): their ids,
    /// versions, timestamps and origins are kept; each id is stored once.
    private func ingest(_ events: [ForeignEvent], keys: [AppendKey], _ txn: Transaction,
                        _ state: inout GroupState) throws -> IngestResult {
        var seen = Set<UUID>()
        var fresh: [ForeignEvent] = []
        var returning: [(positionKey: [UInt8], upstream: UInt64)] = []
        for event in events {
            try EventLogError.validating { () throws(EventValidationError) in
                try EventValidation.check(stream: event.stream)
                try EventValidation.check(type: event.type, data: event.data)
                try EventValidation.check(schemaVersion: event.schemaVersion)
                try EventValidation.check(origin: event.origin)
            }
            guard event.version > 0 else { throw EventLogError.invalidEvent("version must be at least 1 (event \(event.id))") }
            if !seen.insert(event.id).inserted { continue }
            if let stored = try state.cursors.storedPosition(of: event.id) {
                // Already here (this replica's own event coming back, or a page pulled twice).
                if let upstream = event.upstreamPosition { returning.append((Keys.position(stored), upstream)) }
                continue
            }
            fresh.append(event)
        }
        // Written once every event is known valid: a refused ingest writes nothing.
        for (positionKey, upstream) in returning { try recordUpstream(upstream, of: positionKey, txn) }
        for event in fresh {
            try write(position: state.link.position + 1, id: event.id, stream: StreamName(event.stream), version: event.version,
                      type: event.type, schemaVersion: event.schemaVersion, timestampMilliseconds: event.timestampMilliseconds,
                      origin: event.origin, data: event.data, txn, &state)
            if let upstream = event.upstreamPosition {
                try recordUpstream(upstream, of: Keys.position(state.link.position), txn)
            }
        }
        if !fresh.isEmpty { try KeyConditions.applyTaken(keys, at: state.link.position, &state.touches, databases, txn) }
        return IngestResult(accepted: fresh.count, duplicates: events.count - fresh.count, head: state.link.position)
    }

    /// Remembers the server's position of the event stored under `positionKey`; the first
    /// one recorded stays (a server gives an event one position).
    private func recordUpstream(_ upstream: UInt64, of positionKey: [UInt8], _ txn: Transaction) throws {
        guard try txn.get(databases.upstream, key: positionKey) == nil else { return }
        try txn.put(databases.upstream, key: positionKey, value: Keys.position(upstream))
    }

    private func write(position: UInt64, id: UUID, stream: StreamName, version: UInt64, type: String, schemaVersion: UInt16,
                       timestampMilliseconds: Int64, origin: String, data: Data,
                       _ txn: Transaction, _ state: inout GroupState) throws {
        let hash = RecordCodec.encode(into: &state.record, position: position, id: id, stream: stream.text, version: version,
                                      type: type, schemaVersion: schemaVersion, timestampMilliseconds: timestampMilliseconds,
                                      origin: origin, data: data, previousHash: state.link.hash)
        try state.record.withUnsafeBytes { try state.cursors.put(record: $0, position: position, id: id) }
        streamIndex.add(stream: stream, position: position, version: version)
        state.link = (position, hash)
        if state.firstOwn == 0, origin == deviceID {
            try txn.put(databases.meta, key: LogDatabases.firstOwnKey, value: Keys.position(position))
            state.firstOwn = position
        }
    }
}

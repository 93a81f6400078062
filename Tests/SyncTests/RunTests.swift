import ChronicleSync
import ChronicleTestSupport
import ChronicleLog
import Foundation
import ChronicleServer
import Testing

/// The long-running engine, driven the way an app drives it.
@Suite("Running sync", .timeLimit(.minutes(5)))
struct RunTests {
    /// The first status from `updates` that satisfies `condition`.
    static func first(_ updates: AsyncStream<SyncStatus>, where condition: (SyncStatus) -> Bool) async -> SyncStatus? {
        for await status in updates where condition(status) { return status }
        return nil
    }

    @Test("pushes events as they are appended; the status stream follows")
    func pushesAppends() async throws {
        try await withServerAndStore { server, log, _ in
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-a", batchSize: 50))
            let updates = await engine.statusUpdates()
            let running = Task { try await engine.run() }

            let first = try await TestLog.appendEvents(log, count: 120)
            let caughtUp = await Self.first(updates) { $0.lastAckedPosition == 120 && $0.pending == 0 }
            #expect(caughtUp?.head == 120)

            let second = try await TestLog.appendEvents(log, count: 30, start: 120)
            _ = await Self.first(updates) { $0.lastAckedPosition == 150 && $0.phase == .idle }
            #expect(try await server.http.pullAll(token: "token-a").map(\.id) == first + second)

            running.cancel()
            try await running.value
            #expect(try await engine.status().phase == .idle)
        }
    }

    @Test("two running engines: each store receives the other's events by pulling, none pushed back")
    func runPullsTheOthersEvents() async throws {
        try await withServerAndStore { server, a, _ in
            let other = try TemporaryFolder("client-b")
            defer { other.remove() }
            let b = try TestLog.open(store: other.path)
            defer { b.close() }
            var configuration = SyncConfiguration.testing(server.url, token: "token-a")
            configuration.pullInterval = .milliseconds(20)
            let engineA = try SyncEngine.quiet(log: a, configuration: configuration)
            let engineB = try SyncEngine.quiet(log: b, configuration: configuration)
            let updatesB = await engineB.statusUpdates()
            let runningA = Task { try await engineA.run() }
            let runningB = Task { try await engineB.run() }

            let fromA = try await TestLog.appendEvents(a, count: 25)
            let fromB = try await TestLog.appendEvents(b, count: 5, start: 100)
            let caughtUp = await Self.first(updatesB) { $0.pulledPosition == 30 && $0.pending == 0 }
            #expect(caughtUp != nil)
            #expect(Set(try TestLog.all(b).map(\.id)) == Set(fromA + fromB))
            #expect(try b.head() == 30)
            runningA.cancel()
            runningB.cancel()
            try await runningA.value
            try await runningB.value
            #expect(try await server.http.pullAll(token: "token-a").count == 30, "a pulled event was pushed back")
        }
    }

    @Test("failed tries count from 1 in each run; the stored count goes on for the backoff")
    func attemptsCountPerRun() async throws {
        try await withFaultServerAndStore(faults: [.status(503), .status(503), .status(503)]) { server, log, _ in
            try await TestLog.appendEvents(log, count: 3)
            let first = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-f", maxAttempts: 2))
            _ = try await first.push()
            #expect(try await first.status().attemptsThisRun == 2)
            let second = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-f", maxAttempts: 1))
            #expect(try await second.status().attemptsThisRun == 0)
            let summary = try await second.push()
            #expect(summary.failures.count == 1)
            let status = try await second.status()
            #expect(status.attemptsThisRun == 1)
            #expect(status.attempts == 3)
        }
    }

    @Test("networkIsBack ends a backoff wait at once")
    func networkIsBack() async throws {
        try await withFaultServerAndStore(faults: [.status(503, retryAfter: "3600")]) { server, log, _ in
            let ids = try await TestLog.appendEvents(log, count: 10)
            let engine = try SyncEngine.quiet(
                log: log, configuration: .testing(server.url, token: "token-f", maximum: .seconds(7200), maxAttempts: nil))
            let updates = await engine.statusUpdates()
            let running = Task { try await engine.run() }

            let backingOff = await Self.first(updates) { if case .backingOff = $0.phase { true } else { false } }
            #expect(backingOff?.lastError == "HTTP 503: injected 503")
            #expect(backingOff?.attempts == 1)
            let until = try #require(backingOff?.nextTryAt)
            #expect(until.timeIntervalSinceNow > 3000)

            engine.networkIsBack()
            let synced = await Self.first(updates) { $0.lastAckedPosition == 10 }
            #expect(synced?.attempts == 0)
            #expect(synced?.lastError == nil)
            #expect(try await server.http.pullAll(token: "token-f").map(\.id) == ids)
            running.cancel()
            try await running.value
        }
    }

    @Test("after a permanent error nothing is retried until syncNow")
    func syncNowAfterPermanentError() async throws {
        try await withFaultServerAndStore(faults: [.status(403)]) { server, log, _ in
            let ids = try await TestLog.appendEvents(log, count: 8)
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-f", maxAttempts: nil))
            let updates = await engine.statusUpdates()
            let running = Task { try await engine.run() }

            let stopped = await Self.first(updates) { $0.phase == .stopped }
            #expect(stopped?.lastError == "HTTP 403: injected 403")
            #expect(stopped?.pending == 8)
            // More appends do not retry the refused batch on their own.
            try await TestLog.appendEvents(log, count: 2, start: 8)
            _ = await Self.first(updates) { $0.head == 10 }
            #expect(server.script.pushes.count == 1)

            engine.syncNow()
            let synced = await Self.first(updates) { $0.lastAckedPosition == 10 }
            #expect(synced?.pending == 0)
            #expect(server.script.pushes.count == 2)
            #expect(try await server.http.pullAll(token: "token-f").count == ids.count + 2)
            running.cancel()
            try await running.value
        }
    }

    @Test("stopOnPermanentError throws the error instead of waiting")
    func stopOnPermanentError() async throws {
        try await withServerAndStore { server, log, _ in
            try await TestLog.appendEvents(log, count: 3)
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "bad-token"))
            await #expect(throws: SyncError.http(status: 401, message: "unknown token")) {
                try await engine.run(stopOnPermanentError: true)
            }
            #expect(try await engine.status().pending == 3)
        }
    }

    @Test("a second run on the same engine is refused")
    func alreadyRunning() async throws {
        try await withServerAndStore { server, log, _ in
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-a"))
            let updates = await engine.statusUpdates()
            let running = Task { try await engine.run() }
            _ = await Self.first(updates) { $0.phase == .idle && $0.lastAckedPosition == 0 }
            try await TestLog.appendEvents(log, count: 1)
            _ = await Self.first(updates) { $0.lastAckedPosition == 1 }   // run() is up
            await #expect(throws: SyncError.alreadyRunning) { try await engine.run() }
            running.cancel()
            try await running.value
        }
    }

    @Test("a restarted run honours the backoff the previous process stored")
    func storedBackoff() async throws {
        try await withFaultServerAndStore(faults: [.status(503, retryAfter: "3600")]) { server, log, _ in
            let ids = try await TestLog.appendEvents(log, count: 4)
            let configuration = SyncConfiguration.testing(server.url, token: "token-f", maximum: .seconds(7200), maxAttempts: nil)
            let first = try SyncEngine.quiet(log: log, configuration: configuration)
            let updates = await first.statusUpdates()
            let running = Task { try await first.run() }
            _ = await Self.first(updates) { if case .backingOff = $0.phase { true } else { false } }
            running.cancel()   // the process ends mid-backoff
            try await running.value

            let waits = WaitRecorder()
            let second = try SyncEngine.quiet(log: log, configuration: configuration, sleep: waits.sleep)
            let secondUpdates = await second.statusUpdates()
            let resumed = Task { try await second.run() }
            _ = await Self.first(secondUpdates) { $0.lastAckedPosition == 4 }
            let wait = try #require(waits.waits.first)
            #expect(wait > .seconds(3500))   // it waited out the stored backoff before trying again
            #expect(wait <= .seconds(3600))
            #expect(server.script.pushes.count == 2)
            #expect(try await server.http.pullAll(token: "token-f").map(\.id) == ids)
            resumed.cancel()
            try await resumed.value
        }
    }
}

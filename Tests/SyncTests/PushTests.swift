import ChronicleSync
import ChronicleLog
import Foundation
import ChronicleServer
import Testing

@Suite("Pushing to the reference server", .timeLimit(.minutes(10)))
struct PushTests {
    @Test("800 requests in a row: each answered on its first try (no transport stall)")
    func manyRequestsWithoutAStall() async throws {
        // With one URLSession for every request, FoundationNetworking stalled about one
        // `Connection: close` request in 500 until the request timeout (PushClient).
        try await withServerAndStore { server, log, _ in
            try await TestLog.appendEvents(log, count: 4_000)
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-a", batchSize: 5))
            let summary = try await engine.push()
            #expect(summary.outcome == .complete)
            #expect(summary.failures.isEmpty, "\(summary.failures)")
            #expect(summary.requests == 800)
            #expect(try await server.http.pullAll(token: "token-a").count == 4_000)
        }
    }

    @Test("10,000 events in batches: the server holds each once, in the client's order")
    func tenThousandEvents() async throws {
        try await withServerAndStore { server, log, _ in
            let ids = try await TestLog.appendEvents(log, count: 10_000)
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-a", batchSize: 500))

            let started = ContinuousClock.now
            let summary = try await engine.push()
            let elapsed = ContinuousClock.now - started

            #expect(summary.outcome == .complete)
            #expect(summary.batches == 20)
            #expect(summary.requests == 20)
            #expect(summary.failures.isEmpty, "\(summary.failures)")
            #expect(summary.accepted == 10_000)
            #expect(summary.duplicates == 0)
            #expect(summary.pending == 0)
            #expect(summary.lastAckedPosition == 10_000)

            let stored = try await server.http.pullAll(token: "token-a", pageSize: 1000)
            #expect(stored.map(\.id) == ids)
            #expect(stored.map(\.position) == Array(1...10_000))
            #expect(try stored.map(\.wireForm) == TestLog.all(log).map(\.wireForm))
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("push throughput: 10000 events in \(String(format: "%.2f", seconds)) s = \(Int(10_000 / seconds)) events/s (debug build)")

            let again = try await engine.push()
            #expect(again.outcome == .complete)
            #expect(again.requests == 0)
        }
    }

    @Test("a push after new appends sends only the new events")
    func incremental() async throws {
        try await withServerAndStore { server, log, _ in
            let first = try await TestLog.appendEvents(log, count: 30)
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-a", batchSize: 7))
            #expect(try await engine.push().eventsAcknowledged == 30)
            let second = try await TestLog.appendEvents(log, count: 12, start: 30)
            let summary = try await engine.push()
            #expect(summary.eventsAcknowledged == 12)
            #expect(summary.accepted == 12)
            #expect(try await server.http.pullAll(token: "token-a").map(\.id) == first + second)
        }
    }

    @Test("the acknowledged position belongs to the store, whatever URL the next push names")
    func oneUpstreamPerStore() async throws {
        try await withServerAndStore { server, log, _ in
            try await TestLog.appendEvents(log, count: 20)
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-a"))
            #expect(try await engine.push().isComplete)

            let other = try await TestServer.start(tokens: ["token-a": nil])
            do {
                let moved = try SyncEngine.quiet(log: log, configuration: .testing(other.url, token: "token-a"))
                let summary = try await moved.push()
                #expect(summary.requests == 0)
                #expect(summary.pending == 0)
                #expect(try await other.http.pullAll(token: "token-a").isEmpty)
                try await other.stop()
            } catch {
                try? await other.stop()
                throw error
            }
        }
    }

    @Test("a new engine on the same store resumes after the last acknowledged batch")
    func resumesAfterRestart() async throws {
        try await withFaultServerAndStore(faults: [.pass, .pass, .pass, .status(503)]) { server, log, _ in
            let ids = try await TestLog.appendEvents(log, count: 1000)
            let first = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-f", batchSize: 100,
                                                                        maxAttempts: 1))
            let stopped = try await first.push()
            guard case .gaveUp(.http(503, _), attempts: 1) = stopped.outcome else {
                Issue.record("expected to give up on 503, got \(stopped.outcome)")
                return
            }
            #expect(stopped.lastAckedPosition == 300)
            #expect(stopped.pending == 700)
            let status = try SyncEngine.status(of: log)
            #expect(status.lastAckedPosition == 300)
            #expect(status.attempts == 1)
            #expect(status.lastError?.contains("503") == true)

            let second = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-f", batchSize: 100))
            let summary = try await second.push()
            #expect(summary.isComplete)
            #expect(summary.eventsAcknowledged == 700)
            let pushes = server.script.pushes
            try #require(pushes.count == 11)
            #expect(pushes[3] == pushes[4])   // the refused batch went again, same ids
            #expect(try await server.http.pullAll(token: "token-f").map(\.id) == ids)
            #expect(try SyncEngine.status(of: log).attempts == 0)
            #expect(try SyncEngine.status(of: log).lastError == nil)
        }
    }

    @Test("a batch stops short of the byte limit; one oversized event still goes alone")
    func byteLimitedBatches() async throws {
        try await withServerAndStore { server, log, _ in
            let ids = try await TestLog.appendEvents(log, count: 10)
            var configuration = SyncConfiguration.testing(server.url, token: "token-a", batchSize: 100)
            configuration.maxBatchBytes = 600   // each event counts about 260 bytes: two per batch
            let pairs = try await SyncEngine.quiet(log: log, configuration: configuration).push()
            #expect(pairs.isComplete)
            #expect(pairs.batches == 5)

            let more = try await TestLog.appendEvents(log, count: 3, start: 10)
            configuration.maxBatchBytes = 1
            let singles = try await SyncEngine.quiet(log: log, configuration: configuration).push()
            #expect(singles.isComplete)
            #expect(singles.batches == 3)
            #expect(try await server.http.pullAll(token: "token-a").map(\.id) == ids + more)
        }
    }

    @Test("a 413 halves the batch and tries again at once")
    func tooLargeSplits() async throws {
        try await withFaultServerAndStore(faults: [.status(413), .status(413)]) { server, log, _ in
            let ids = try await TestLog.appendEvents(log, count: 40)
            let waits = WaitRecorder()
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-f", batchSize: 40),
                                              sleep: waits.sleep)
            let summary = try await engine.push()
            #expect(summary.isComplete)
            #expect(waits.waits.isEmpty)
            #expect(server.script.pushes.map(\.count) == [40, 20, 10, 10, 10, 10])
            #expect(try await server.http.pullAll(token: "token-f").map(\.id) == ids)
        }
    }
}

import ChronicleSync
import ChronicleTestSupport
import ChronicleLog
import Foundation
import ChronicleServer
import Testing

@Suite("Retrying against a faulty server", .timeLimit(.minutes(5)))
struct RetryTests {
    @Test("503 five times, then success: waits of base × 2^(n-1) capped at the maximum, one stored copy")
    func serviceUnavailableThenSuccess() async throws {
        let faults = Array(repeating: FaultServer.Fault.status(503), count: 5)
        try await withFaultServerAndStore(faults: faults) { server, log, _ in
            let ids = try await TestLog.appendEvents(log, count: 40)
            let waits = WaitRecorder()
            let engine = try SyncEngine.quiet(
                log: log, configuration: .testing(server.url, token: "token-f", maximum: .milliseconds(4)), sleep: waits.sleep)
            let summary = try await engine.push()

            #expect(summary.isComplete)
            #expect(summary.requests == 6)
            #expect(waits.waits == [.milliseconds(1), .milliseconds(2), .milliseconds(4), .milliseconds(4), .milliseconds(4)])
            for (index, wait) in waits.waits.enumerated() {
                let n = index + 1
                #expect(wait >= min(.milliseconds(4), .milliseconds(1) * (1 << (n - 1))))
                #expect(wait <= .milliseconds(4))
            }
            #expect(summary.failures.allSatisfy { $0 == .http(status: 503, message: "injected 503") })
            #expect(Set(server.script.pushes).count == 1)   // every try carried the same ids
            #expect(server.script.pushes.count == 6)
            #expect(try await server.http.pullAll(token: "token-f").map(\.id) == ids)
            let status = try SyncEngine.status(of: log)
            #expect(status.attempts == 0)
            #expect(status.lastError == nil)
            #expect(status.pending == 0)
        }
    }

    @Test("after max attempts the push gives up, reports the cause and keeps every event pending")
    func givesUp() async throws {
        let faults = Array(repeating: FaultServer.Fault.status(502), count: 10)
        try await withFaultServerAndStore(faults: faults) { server, log, _ in
            try await TestLog.appendEvents(log, count: 25)
            let waits = WaitRecorder()
            let engine = try SyncEngine.quiet(
                log: log, configuration: .testing(server.url, token: "token-f", maxAttempts: 3), sleep: waits.sleep)
            let summary = try await engine.push()

            #expect(summary.outcome == .gaveUp(.http(status: 502, message: "injected 502"), attempts: 3))
            #expect(summary.requests == 3)
            #expect(waits.waits == [.milliseconds(1), .milliseconds(2)])
            #expect(summary.pending == 25)
            let status = try SyncEngine.status(of: log)
            #expect(status.pending == 25)
            #expect(status.lastAckedPosition == 0)
            #expect(status.attempts == 3)
            #expect(status.lastError == "HTTP 502: injected 502")
            #expect(try await server.http.pullAll(token: "token-f").isEmpty)
        }
    }

    @Test("a connection dropped after the batch was stored: the retry carries the same ids, stored once")
    func lostAcknowledgement() async throws {
        try await withFaultServerAndStore(faults: [.pass, .dropAfterStoring]) { server, log, _ in
            let ids = try await TestLog.appendEvents(log, count: 120)
            let waits = WaitRecorder()
            let engine = try SyncEngine.quiet(
                log: log, configuration: .testing(server.url, token: "token-f", batchSize: 60), sleep: waits.sleep)
            let summary = try await engine.push()

            #expect(summary.isComplete)
            #expect(summary.requests == 3)
            #expect(summary.failures.count == 1)
            #expect(summary.failures.first?.isRetryable == true)
            if case .transport = summary.failures.first {} else { Issue.record("expected a transport failure, got \(summary.failures)") }
            #expect(summary.accepted == 60)
            #expect(summary.duplicates == 60)   // the second batch was already stored
            let pushes = server.script.pushes
            try #require(pushes.count == 3)
            #expect(pushes[1] == pushes[2])
            #expect(try await server.http.pullAll(token: "token-f").map(\.id) == ids)
        }
    }

    @Test("an answer slower than the request timeout is retried; the server keeps one copy")
    func slowerThanTimeout() async throws {
        try await withFaultServerAndStore(faults: [.holdUntilNextRequest]) { server, log, _ in
            let ids = try await TestLog.appendEvents(log, count: 50)
            let waits = WaitRecorder()
            // The first answer is held until it times out. On a busy machine a retry may time out
            // too, so the test asks for at least one retry, each a timeout, each the same body.
            let engine = try SyncEngine.quiet(
                log: log, configuration: .testing(server.url, token: "token-f", requestTimeout: .seconds(5)),
                sleep: waits.sleep)
            let summary = try await engine.push()

            #expect(summary.isComplete)
            #expect(summary.requests >= 2)
            #expect(summary.failures.count == summary.requests - 1)
            #expect(summary.failures.allSatisfy { $0.isRetryable })
            #expect(summary.failures.allSatisfy { $0.description.contains("within") || $0.description.contains("timed out") },
                    "\(summary.failures)")
            #expect(summary.duplicates == 50)
            let pushes = server.script.pushes
            #expect(pushes.count == summary.requests)
            #expect(Set(pushes).count == 1, "every retry carries the same events")
            #expect(try await server.http.pullAll(token: "token-f").map(\.id) == ids)
        }
    }

    @Test("429 with Retry-After in seconds: the header replaces the computed wait, jitter included")
    func tooManyRequestsRetryAfterSeconds() async throws {
        try await withFaultServerAndStore(faults: [.status(429, retryAfter: "2")]) { server, log, _ in
            try await TestLog.appendEvents(log, count: 5)
            let waits = WaitRecorder()
            let engine = try SyncEngine.quiet(
                log: log, configuration: .testing(server.url, token: "token-f", maximum: .seconds(60), jitter: .full),
                sleep: waits.sleep)
            let summary = try await engine.push()
            #expect(summary.isComplete)
            #expect(waits.waits == [.seconds(2)])
            #expect(summary.failures == [.http(status: 429, message: "injected 429")])
        }
    }

    @Test("Retry-After is still capped by the maximum wait")
    func retryAfterCapped() async throws {
        try await withFaultServerAndStore(faults: [.status(503, retryAfter: "120")]) { server, log, _ in
            try await TestLog.appendEvents(log, count: 5)
            let waits = WaitRecorder()
            let engine = try SyncEngine.quiet(
                log: log, configuration: .testing(server.url, token: "token-f", maximum: .seconds(5)), sleep: waits.sleep)
            #expect(try await engine.push().isComplete)
            #expect(waits.waits == [.seconds(5)])
        }
    }

    @Test("Retry-After as an HTTP date")
    func retryAfterDate() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.string(from: Date().addingTimeInterval(3600))
        try await withFaultServerAndStore(faults: [.status(503, retryAfter: date)]) { server, log, _ in
            try await TestLog.appendEvents(log, count: 5)
            let waits = WaitRecorder()
            let engine = try SyncEngine.quiet(
                log: log, configuration: .testing(server.url, token: "token-f", maximum: .seconds(7200)), sleep: waits.sleep)
            #expect(try await engine.push().isComplete)
            let wait = try #require(waits.waits.first)
            #expect(wait > .seconds(3000))
            #expect(wait <= .seconds(3601))
        }
    }

    @Test("with full jitter every wait lies between 0 and the bound of its attempt")
    func fullJitterBounds() async throws {
        let faults = Array(repeating: FaultServer.Fault.status(500), count: 8)
        try await withFaultServerAndStore(faults: faults) { server, log, _ in
            try await TestLog.appendEvents(log, count: 5)
            let waits = WaitRecorder()
            let engine = try SyncEngine.quiet(
                log: log, configuration: .testing(server.url, token: "token-f", maximum: .milliseconds(16), jitter: .full),
                sleep: waits.sleep)
            #expect(try await engine.push().isComplete)
            #expect(waits.waits.count == 8)
            for (index, wait) in waits.waits.enumerated() {
                #expect(wait >= .zero)
                #expect(wait <= min(.milliseconds(16), .milliseconds(1) * (1 << index)))
            }
        }
    }

    @Test("a server that cannot be reached is a retryable failure")
    func connectionRefused() async throws {
        let store = try TemporaryFolder("client")
        defer { store.remove() }
        let log = try TestLog.open(store: store.path)
        try await TestLog.appendEvents(log, count: 3)
        // A port that was just free: bind, learn it, close it.
        let closed = try await TestServer.start(tokens: ["t": nil])
        let url = closed.url
        try await closed.stop()
        let waits = WaitRecorder()
        let engine = try SyncEngine.quiet(log: log, configuration: .testing(url, token: "t", maxAttempts: 2), sleep: waits.sleep)
        let summary = try await engine.push()
        guard case .gaveUp(.transport, attempts: 2) = summary.outcome else {
            Issue.record("expected to give up on a transport error, got \(summary.outcome)")
            return
        }
        #expect(waits.waits == [.milliseconds(1)])
        #expect(summary.pending == 3)
        log.close()
    }
}

@Suite("Permanent errors", .timeLimit(.minutes(5)))
struct PermanentErrorTests {
    @Test("400 stops the push with the server's message and leaves pending unchanged")
    func badRequest() async throws {
        // A client's log holds nothing the protocol refuses (it checks payloads by the same rules):
        // a 400 comes from a server that judges otherwise, here one that refuses the second batch.
        try await withFaultServerAndStore(faults: [.pass, .status(400), .status(400)]) { server, log, _ in
            try await TestLog.appendEvents(log, count: 10)
            let waits = WaitRecorder()
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-f", batchSize: 4),
                                        sleep: waits.sleep)
            let first = try await engine.push()
            guard case .stopped(.http(400, let message)) = first.outcome else {
                Issue.record("expected a 400 stop, got \(first.outcome)")
                return
            }
            #expect(message == "injected 400")
            #expect(first.requests == 2)
            #expect(waits.waits.isEmpty)
            #expect(first.lastAckedPosition == 4)
            let before = try SyncEngine.status(of: log)
            #expect(before.pending == 6)
            #expect(before.lastError == "HTTP 400: injected 400")
            #expect(before.phase == .stopped)

            let second = try await engine.push()   // the same batch, refused the same way
            #expect(second.failure == first.failure)
            #expect(second.requests == 1)
            let after = try SyncEngine.status(of: log)
            #expect(after.pending == before.pending)
            #expect(after.lastAckedPosition == 4)
            #expect(after.attempts == 2)
            #expect(try await server.http.pullAll(token: "token-f").count == 4)   // the refused batch stored nothing
        }
    }

    @Test("401 stops the push with a clear message and leaves pending unchanged")
    func unauthorized() async throws {
        try await withServerAndStore { server, log, _ in
            try await TestLog.appendEvents(log, count: 12)
            let waits = WaitRecorder()
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "wrong-token"), sleep: waits.sleep)
            let summary = try await engine.push()
            #expect(summary.outcome == .stopped(.http(status: 401, message: "unknown token")))
            #expect(summary.failure?.description == "HTTP 401: unknown token")
            #expect(summary.requests == 1)
            #expect(waits.waits.isEmpty)
            let status = try SyncEngine.status(of: log)
            #expect(status.pending == 12)
            #expect(status.lastAckedPosition == 0)
            #expect(status.lastError == "HTTP 401: unknown token")

            let anonymous = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: nil))
            let missing = try await anonymous.push()
            #expect(missing.failure?.status == 401)
            #expect(missing.failure?.description.contains("missing bearer token") == true)
            #expect(try SyncEngine.status(of: log).pending == 12)
        }
    }

    @Test("a 2xx that does not acknowledge the batch never advances the position")
    func unexpectedSuccessBody() async throws {
        try await withFaultServerAndStore(faults: [.status(200)]) { server, log, _ in
            try await TestLog.appendEvents(log, count: 3)
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-f"))
            let summary = try await engine.push()
            guard case .stopped(.invalidResponse) = summary.outcome else {
                Issue.record("expected an invalid response, got \(summary.outcome)")
                return
            }
            #expect(summary.pending == 3)
            #expect(try SyncEngine.status(of: log).lastAckedPosition == 0)
        }
    }
}

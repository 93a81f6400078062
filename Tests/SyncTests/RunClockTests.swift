import ChronicleSync
import ChronicleLog
import Foundation
import Testing

/// `run()` waits only through the engine's injected ``SyncEngine/Sleep``: the idle wait until
/// the next poll or pull, and the debounce after an append.
@Suite("Running sync on an injected clock", .timeLimit(.minutes(5)))
struct RunClockTests {
    @Test("the idle wait (the shorter of the poll and pull intervals) and the debounce go through the injected sleep")
    func waitsGoThroughTheInjectedSleep() async throws {
        try await withServerAndStore { server, log, _ in
            let (requested, requests) = AsyncStream.makeStream(of: Duration.self)
            // Records each wait, then waits "forever" (until the wait is cancelled or woken).
            let sleep: SyncEngine.Sleep = { duration in
                requests.yield(duration)
                try await Task.sleep(for: .seconds(3600))
            }
            var configuration = SyncConfiguration.testing(server.url, token: "token-a")
            configuration.pollInterval = .seconds(3000)
            configuration.pullInterval = .seconds(1800)
            configuration.pullWait = .zero   // pulls at intervals, not waiting on the server
            configuration.debounce = .milliseconds(7)
            let engine = try SyncEngine.quiet(log: log, configuration: configuration, sleep: sleep)
            let running = Task { try await engine.run() }
            var waits = requested.makeAsyncIterator()
            #expect(await waits.next() == .seconds(1800), "idle: the pull interval, the shorter one")
            try await TestLog.appendEvents(log, count: 1)
            #expect(await waits.next() == .milliseconds(7), "an append: the debounce")
            running.cancel()
            _ = try? await running.value
        }
    }
}

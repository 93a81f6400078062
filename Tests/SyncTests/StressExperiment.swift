import ChronicleSync
import EventLog
import Foundation
import Testing

@Suite("Stress experiment", .enabled(if: ProcessInfo.processInfo.environment["EXPERIMENT"] != nil))
struct StressExperiment {
    @Test(arguments: 0..<6)
    func stress(run: Int) async throws {
        try await withServerAndStore { server, log, _ in
            try await TestLog.appendEvents(log, count: 20_000)
            let engine = try SyncEngine.quiet(log: log, configuration: .testing(server.url, token: "token-a", batchSize: 100, requestTimeout: .seconds(5)))
            let started = ContinuousClock.now
            let summary = try await engine.push()
            print("run \(run): \(summary.requests) requests, failures \(summary.failures.map(\.description)), \(ContinuousClock.now - started)")
        }
    }
}

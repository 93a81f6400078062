import ChronicleTestSupport
import ChronicleWire
import ChronicleSync
import ChronicleLog
import Foundation
import Logging
import ChronicleServer
/// Runs `body` with a client store and a reference server, cleaning both up whatever happens.
func withServerAndStore<T>(tokens: [String: String?] = ["token-a": nil], limits: SyncAPI.Limits = SyncAPI.Limits(),
                           backend: ServerBackend = .lmdb,
                           _ body: (TestServer, EventLog, TemporaryFolder) async throws -> T) async throws -> T {
    let server = try await TestServer.start(tokens: tokens, limits: limits, backend: backend)
    let store = try TemporaryFolder("client")
    do {
        let log = try TestLog.open(store: store.path)
        let result = try await body(server, log, store)
        log.close()
        try await server.stop()
        store.remove()
        return result
    } catch {
        try? await server.stop()
        store.remove()
        throw error
    }
}

/// Runs `body` with a client store and a fault-injecting server in front of the reference handlers.
func withFaultServerAndStore<T>(token: String = "token-f", faults: [FaultServer.Fault], pullFaults: [FaultServer.PullFault] = [],
                                _ body: (FaultServer, EventLog, TemporaryFolder) async throws -> T) async throws -> T {
    let server = try await FaultServer.start(token: token, faults: faults, pullFaults: pullFaults)
    let store = try TemporaryFolder("client")
    do {
        let log = try TestLog.open(store: store.path)
        let result = try await body(server, log, store)
        log.close()
        try await server.stop()
        store.remove()
        return result
    } catch {
        try? await server.stop()
        store.remove()
        throw error
    }
}

extension SyncConfiguration {
    /// A configuration for tests: deterministic backoff of 1 ms doubling up to `maximum`, and a
    /// request timeout that only guards a hang (a busy machine may take seconds to answer).
    static func testing(_ remote: URL, token: String?, batchSize: Int = 500, maximum: Duration = .milliseconds(64),
                        jitter: RetryPolicy.Jitter = .none, maxAttempts: Int? = 10,
                        requestTimeout: Duration = .seconds(60)) -> SyncConfiguration {
        SyncConfiguration(remote: remote, token: token, batchSize: batchSize,
                          retry: RetryPolicy(base: .milliseconds(1), maximum: maximum, jitter: jitter, maxAttempts: maxAttempts),
                          requestTimeout: requestTimeout, debounce: .milliseconds(5))
    }
}

extension RecordedEvent {
    /// Everything the wire carries, position and hash aside: what must survive a push unchanged.
    var wireForm: String { EventJSON.encode(self, includePosition: false) }
}

extension SyncEngine {
    /// An engine that logs nothing below critical (the tests check what it reports instead).
    static func quiet(log: EventLog, configuration: SyncConfiguration,
                      sleep: @escaping Sleep = { try await Task.sleep(for: $0) }) throws -> SyncEngine {
        try SyncEngine(log: log, configuration: configuration, logger: Quiet.logger, sleep: sleep)
    }
}

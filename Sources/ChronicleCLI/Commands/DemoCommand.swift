import ChronicleWire
import ArgumentParser
@_spi(Operator) import Chronicle
import ChronicleSync
import ChronicleTodoDomain
import ChronicleLog
import Foundation
import Logging
import ChronicleServer
import ChronicleServerLMDB
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `chronicle demo`: the whole story on a fresh temporary store, narrated.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Tell the whole story on fresh temporary stores: offline edits, stats, a local server, sync with retry, a second device and a merge, the audit log.")

    @Flag(help: "Keep the temporary folder (its path is printed) instead of removing it.") var keep = false

    func run() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-demo-\(UUID().uuidString.prefix(8))").path
        defer { if !keep { try? FileManager.default.removeItem(atPath: root) } }
        let storePath = root + "/store"
        step("A fresh store in \(storePath) — the app is offline.")
        let store = try ChronicleStore(directory: storePath)

        // 1. Offline edits.
        let ada = try await store.createUser(name: "Ada Lovelace", age: 36)
        let grace = try await store.createUser(name: "Grace Hopper", age: 45)
        say("created users \(ada.name) and \(grace.name)")
        let notes = try await store.createTodo(title: "Write the notes on the Analytical Engine", deadline: "2026-12-01", userId: ada.id)
        let bernoulli = try await store.createTodo(title: "Compute Bernoulli numbers", deadline: "2026-12-01", userId: ada.id, memo: "note G")
        let compiler = try await store.createTodo(title: "Finish the A-0 compiler", deadline: "2026-12-02", userId: grace.id)
        try await store.completeTodo(bernoulli.id)
        say("created 3 todos and completed \"\(bernoulli.title)\"")
        do {
            try await store.completeTodo(bernoulli.id)
        } catch {
            say("completing it again is refused: \(error) — nothing was appended")
        }
        try await printStats(store, "stats before the move")
        step("Moving \"\(bernoulli.title)\" (completed) from 2026-12-01 to 2026-12-03: both days change.")
        try await store.updateTodo(bernoulli.id, deadline: "2026-12-03")
        try await printStats(store, "stats after the move")
        _ = notes; _ = compiler

        // 2. Push while the server is unreachable: retries, then gives up, nothing is lost.
        let offline = URL(string: "http://127.0.0.1:9")!
        step("Pushing to \(offline) while no server listens there (3 attempts, backoff 100 ms × 2^(n-1)).")
        let quiet = Self.quietLogger()
        let failing = try SyncEngine(log: store.log, configuration: SyncConfiguration(
            remote: offline, token: "demo-token",
            retry: RetryPolicy(base: .milliseconds(100), maximum: .seconds(1), jitter: .none, maxAttempts: 3),
            requestTimeout: .seconds(2)), logger: quiet)
        let failed = try await failing.push()
        say("gave up after \(failed.requests) tries, waiting \(failed.waits.map(Self.format).joined(separator: ", ")) between them: \(failed.failure.map { "\($0)" } ?? "?")")
        say("pending events kept for later: \(failed.pending)")

        // 3. The reference server comes up; the push completes.
        var tokens = TokenTable()
        try tokens.add(token: "demo-token", tenant: "demo")
        let server = try await SyncServer(configuration: .init(port: 0, tokens: tokens, logLevel: .warning),
                                          storage: LMDBEventStorage(dataDirectory: root + "/server")).start()
        step("The reference server listens on \(server.url); pushing again.")
        let engine = try SyncEngine(log: store.log, configuration: SyncConfiguration(
            remote: server.url, token: "demo-token", batchSize: 4,
            retry: RetryPolicy(base: .milliseconds(100), maximum: .seconds(2), jitter: .full, maxAttempts: 10)), logger: quiet)
        let pushed = try await engine.push()
        guard pushed.isComplete else {
            try await server.stop()
            throw ValidationError("the push did not complete: \(pushed.failure.map { "\($0)" } ?? "unknown")")
        }
        say("pushed \(pushed.eventsAcknowledged) events in \(pushed.batches) batches; the server accepted \(pushed.accepted), duplicates \(pushed.duplicates); pending now \(pushed.pending)")
        let again = try await engine.push()
        say("a second push sends nothing: \(again.eventsAcknowledged) events, pending \(again.pending)")

        // 4. The server's copy equals the local log.
        let serverEvents = try await Self.pull(server.url, token: "demo-token")
        let localEvents = try store.log.read(after: 0, limit: 10_000)
        let same = serverEvents == localEvents.map { EventJSON.encode($0, includePosition: false) }
        step("The server holds \(serverEvents.count) events; the local log holds \(localEvents.count); identical: \(same ? "yes" : "NO")")

        // 5. A second device: pull, offline edits on both, one conflict, convergence.
        let converged: Bool
        do {
            converged = try await twoDevices(phone: store, root: root, server: server.url, token: "demo-token")
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()

        // 6. The audit trail, verified: the phone's own events and the laptop's, each once.
        step("The phone's audit log:")
        CLIOutput.line(LogCommand.header)
        for event in try store.log.read(after: 0, limit: 10_000) { CLIOutput.line(LogCommand.row(event)) }
        let report = try store.log.verify()
        step("verify: \(report.isIntact ? "OK" : "FAILED") — \(report.eventsChecked) events, hash chain head \(report.headHash.prefix(16))…")
        await store.close()
        if keep { say("kept \(root)") }
        guard same, converged, report.isIntact else { throw ExitCode(1) }
    }

    private func printStats(_ store: ChronicleStore, _ title: String) async throws {
        let stats = try await store.stats()
        say("\(title):")
        CLIOutput.line(CLIOutput.table(["DATE", "TOTAL", "COMPLETED"], stats.map { [$0.date.description, String($0.total), String($0.completed)] })
            .split(separator: "\n").map { "      " + $0 }.joined(separator: "\n"))
    }

    func step(_ text: String) { CLIOutput.line("\n==> \(text)") }
    func say(_ text: String) { CLIOutput.line("    \(text)") }

    private static func format(_ duration: Duration) -> String {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return "\(ms) ms"
    }

    private static func quietLogger() -> Logger {
        var logger = Logger(label: "chronicle.demo")
        logger.logLevel = .critical
        return logger
    }

    /// The server's events in its order, each in wire form (no position), for comparison.
    private static func pull(_ url: URL, token: String) async throws -> [String] {
        var request = URLRequest(url: url.appendingPathComponent("v1/events").appending(queryItems: [
            URLQueryItem(name: "after", value: "0"), URLQueryItem(name: "limit", value: "10000")]))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        return try WireEvent.decodePage(data).events.map { EventJSON.encode($0, includePosition: false) }
    }
}

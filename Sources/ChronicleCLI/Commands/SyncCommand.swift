import ChronicleWire
import ArgumentParser
@_spi(Operator) import Chronicle
import ChronicleSync
import Logging
import Dispatch
import ChronicleLog
import Foundation

/// `chronicle sync push|pull|status|run`: send the store's events to its remote, and fetch everyone's.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Push the store's unacknowledged events to a sync server and pull everyone's, retrying with backoff.",
        subcommands: [Push.self, Pull.self, Status.self, Run.self])

    /// `sync push`: one pass until everything is acknowledged or it gives up.
    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "push",
            abstract: "Push every unacknowledged event; exit 0 when all are acknowledged, non-zero when it gives up.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var remote: RemoteOptions
        @Option(help: "Give up after this many consecutive failed tries.") var maxAttempts: Int = 10
        @Flag(help: "Print the summary as JSON.") var json = false

        func validate() throws {
            try remote.validate()
            guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        }

        func run() async throws {
            let log = try StoreAccess.openLog(store)
            let engine = try SyncEngine(log: log, configuration: remote.configuration(maxAttempts: maxAttempts), logger: syncLogger())
            let summary = try await engine.push()
            if json {
                CLIOutput.line(Self.json(summary))
            } else {
                CLIOutput.line(Self.describe(summary))
            }
            if let error = SyncCommandError(summary.outcome, then: "\(events(summary.pending)) still pending") { throw error }
        }

        /// `{"complete","eventsAcknowledged","accepted","duplicates","batches","requests","lastAckedPosition","pending","error"}`
        static func json(_ summary: PushSummary) -> String {
            "{\"complete\":\(summary.isComplete),\"eventsAcknowledged\":\(summary.eventsAcknowledged),"
                + "\"accepted\":\(summary.accepted),\"duplicates\":\(summary.duplicates),\"batches\":\(summary.batches),"
                + "\"requests\":\(summary.requests),\"lastAckedPosition\":\(summary.lastAckedPosition),"
                + "\"pending\":\(summary.pending),\"error\":\(jsonValue(summary.failure?.description))}"
        }

        static func describe(_ summary: PushSummary) -> String {
            let events = summary.eventsAcknowledged == 1 ? "event" : "events"
            var text = "pushed \(summary.eventsAcknowledged) \(events) in \(summary.batches) \(summary.batches == 1 ? "batch" : "batches")"
            if summary.eventsAcknowledged > 0 {
                text += " (\(summary.accepted) new on the server, \(summary.duplicates) already there)"
            }
            let failed = summary.requests - summary.batches
            if failed > 0 { text += ", \(failed) failed \(failed == 1 ? "try" : "tries")" }
            text += "; acknowledged up to position \(summary.lastAckedPosition), \(summary.pending) pending"
            return text
        }
    }

    /// `sync pull`: one pass until the store has every server event.
    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pull",
            abstract: "Fetch every server event after the store's pull cursor and store it; exit 0 when caught up.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var remote: RemoteOptions
        @Option(help: "The most events per request (1…10000).") var limit: Int = 1000
        @Option(help: "Give up after this many consecutive failed tries.") var maxAttempts: Int = 10
        @Flag(help: "Print the summary as JSON.") var json = false

        func validate() throws {
            try remote.validate()
            guard (1...10_000).contains(limit) else { throw ValidationError("--limit must be from 1 to 10000") }
            guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        }

        func run() async throws {
            var configuration = try remote.configuration(maxAttempts: maxAttempts)
            configuration.pullLimit = limit
            let engine = try StoreAccess.openStore(store).syncEngine(configuration, logger: syncLogger())
            let summary = try await engine.pull()
            if json {
                CLIOutput.line("{\"complete\":\(summary.isComplete),\"received\":\(summary.received),\"stored\":\(summary.stored),"
                               + "\"pages\":\(summary.pages),\"requests\":\(summary.requests),"
                               + "\"pulledPosition\":\(summary.pulledPosition),\"error\":\(jsonValue(summary.failure?.description))}")
            } else {
                var text = "pulled \(events(summary.received)) (\(summary.stored) new here) in \(summary.pages) "
                    + (summary.pages == 1 ? "page" : "pages")
                let failed = summary.requests - summary.pages
                if failed > 0 { text += ", \(failed) failed \(failed == 1 ? "try" : "tries")" }
                CLIOutput.line(text + "; up to server position \(summary.pulledPosition)")
            }
            if let error = SyncCommandError(summary.outcome) { throw error }
        }
    }

    /// `sync status`: the stored state, no network.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show how many events wait to be pushed, why the last try failed, and what merges overruled.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let chronicle = try StoreAccess.openStore(store)
            let status = try SyncEngine.status(of: chronicle.log)
            let conflicts = try await chronicle.conflicts()
            if output.json {
                let listed = conflicts.map { conflict in
                    "{\"stream\":\(jsonValue(conflict.stream)),\"kind\":\(jsonValue(conflict.kind)),\"detail\":\(jsonValue(conflict.detail))}"
                }
                let counters = status.counters
                CLIOutput.line("{\"pending\":\(status.pending),\"lastAckedPosition\":\(status.lastAckedPosition),"
                               + "\"attempts\":\(status.attempts),\"lastError\":\(jsonValue(status.lastError)),"
                               + "\"deviceRevoked\":\(status.deviceRevoked),"
                               + "\"pulledPosition\":\(status.pulledPosition),\"conflicts\":[\(listed.joined(separator: ","))],"
                               + "\"counters\":{\"pushed\":\(counters.pushed),\"pulled\":\(counters.pulled),"
                               + "\"failures\":\(counters.failures),\"conflicts\":\(conflicts.count)}}")
                return
            }
            CLIOutput.line("pending: \(events(status.pending)) (log head \(status.head), acknowledged up to \(status.lastAckedPosition))")
            CLIOutput.line("pulled: up to server position \(status.pulledPosition)")
            CLIOutput.line("so far: \(events(status.counters.pushed)) pushed, \(events(status.counters.pulled)) pulled, "
                           + "\(status.counters.failures) failed \(status.counters.failures == 1 ? "try" : "tries"), "
                           + "\(conflicts.count) \(conflicts.count == 1 ? "conflict" : "conflicts")")
            if let success = status.lastSuccessAt {
                CLIOutput.line("last acknowledged batch: \(Timestamp.format(milliseconds: Int64(success.timeIntervalSince1970 * 1000)))")
            }
            if let error = status.lastError {
                CLIOutput.line("last error: \(error) (\(status.attempts) failed \(status.attempts == 1 ? "try" : "tries") in a row)")
            }
            if status.deviceRevoked {
                CLIOutput.line("device: revoked by the server's operator; nothing syncs until they reinstate it")
            }
            switch status.phase {
            case .stopped:
                CLIOutput.line("state: stopped on a permanent error; fix it, then run 'chronicle sync push'")
            case .backingOff(let until):
                CLIOutput.line("state: backing off until \(Timestamp.format(milliseconds: Int64(until.timeIntervalSince1970 * 1000)))")
            case .idle, .pushing, .pulling:
                CLIOutput.line(status.pending == 0 ? "state: up to date" : "state: waiting for the next push")
            }
            CLIOutput.line(conflicts.isEmpty ? "conflicts: none" : "conflicts: \(conflicts.count)")
            for conflict in conflicts {
                CLIOutput.line("  \(conflict.stream)  \(conflict.kind): \(conflict.detail)")
            }
        }
    }

    /// `sync run`: long-running, until SIGINT or SIGTERM.
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Push events as they are appended and pull everyone's, back off on failure, stop cleanly on SIGINT/SIGTERM.")

        @OptionGroup var store: StoreOptions
        @OptionGroup var remote: RemoteOptions
        @Option(help: "Also push at least this often, in seconds, even without new events.") var interval: Int = 60
        @Option(help: "Pull at least this often, in milliseconds (when the server does not take --pull-wait).")
        var pullIntervalMs: Int = 2000
        @Option(help: "Each pull waits up to this many seconds on the server for new events, which then arrive as they commit (0 to 60; 0 pulls by --pull-interval-ms alone).")
        var pullWait: Int = 25

        func validate() throws {
            try remote.validate()
            guard interval >= 1 else { throw ValidationError("--interval must be at least 1 second") }
            guard pullIntervalMs >= 1 else { throw ValidationError("--pull-interval-ms must be at least 1") }
            guard (0...60).contains(pullWait) else { throw ValidationError("--pull-wait must be from 0 to 60 seconds") }
        }

        func run() async throws {
            let chronicle = try StoreAccess.openStore(store)
            let log = chronicle.log
            var configuration = try remote.configuration(maxAttempts: nil)
            configuration.pollInterval = .seconds(interval)
            configuration.pullInterval = .milliseconds(pullIntervalMs)
            configuration.pullWait = .seconds(pullWait)
            let engine = try chronicle.syncEngine(configuration, logger: syncLogger())
            let updates = await engine.statusUpdates()
            let printer = Task {
                var previous: SyncStatus?
                for await status in updates {
                    if let line = Self.describe(status, previous: previous) { CLIOutput.line(line) }
                    previous = status
                }
            }
            let task = Task { try await engine.run(stopOnPermanentError: true) }
            let signals = SignalTrap([SIGINT, SIGTERM]) { signal in
                CLIOutput.note("received \(signal == SIGINT ? "SIGINT" : "SIGTERM"), stopping")
                task.cancel()
            }
            defer { signals.cancel() }
            CLIOutput.line("sync run: syncing \(log.path) with \(configuration.remote.absoluteString) (Ctrl-C to stop)")
            do {
                try await task.value
            } catch let error as SyncError {
                printer.cancel()
                throw SyncCommandError("stopped: \(error); \(events((try? SyncEngine.status(of: log).pending) ?? 0)) pending")
            }
            printer.cancel()
            let status = try SyncEngine.status(of: log)
            CLIOutput.line("stopped; \(events(status.pending)) pending")
        }

        static func describe(_ status: SyncStatus, previous: SyncStatus?) -> String? {
            switch status.phase {
            case .pushing, .pulling:
                return nil
            case .idle:
                if let previous, previous.lastAckedPosition == status.lastAckedPosition,
                   previous.pulledPosition == status.pulledPosition, previous.phase == .idle { return nil }
                return "acknowledged up to position \(status.lastAckedPosition), \(status.pending) pending; "
                    + "pulled up to server position \(status.pulledPosition)"
            case .backingOff(let until):
                if case .backingOff(let before) = previous?.phase, before == until { return nil }
                let seconds = max(0, until.timeIntervalSinceNow)
                if status.attemptsThisRun == 0 {
                    return "waiting out an earlier run's backoff (\(status.lastError ?? "unknown error")); retrying in \(String(format: "%.1f", seconds)) s"
                }
                return "try \(status.attemptsThisRun) failed: \(status.lastError ?? "unknown error"); retrying in \(String(format: "%.1f", seconds)) s"
            case .stopped:
                if previous?.phase == .stopped { return nil }
                return "stopped: \(status.lastError ?? "unknown error")"
            }
        }
    }
}

/// The options every pushing subcommand shares (SPEC §4).
struct RemoteOptions: ParsableArguments {
    @Option(help: "The sync server's base URL, e.g. http://127.0.0.1:8080.") var remote: String
    @Option(help: "The bearer token (default: $CHRONICLE_TOKEN).") var token: String?
    @Option(help: "The most events per request.") var batchSize: Int = 500
    @Option(help: "The wait after the first failure, in milliseconds; it doubles per failure.") var retryBaseMs: Int = 500
    @Option(help: "The longest wait between tries, in milliseconds (also caps Retry-After).") var retryMaxMs: Int = 60_000
    @Option(help: "full: a random wait up to the backoff bound; none: exactly the bound.") var jitter: RetryPolicy.Jitter = .full
    @Option(help: "How long one request may take, in milliseconds.") var timeoutMs: Int = 30_000

    func validate() throws {
        guard URL(string: remote)?.host != nil else { throw ValidationError("--remote must be a URL like http://127.0.0.1:8080") }
        guard (1...10_000).contains(batchSize) else { throw ValidationError("--batch-size must be from 1 to 10000") }
        guard retryBaseMs >= 1 else { throw ValidationError("--retry-base-ms must be at least 1") }
        guard retryMaxMs >= retryBaseMs else { throw ValidationError("--retry-max-ms must be at least --retry-base-ms") }
        guard timeoutMs >= 1 else { throw ValidationError("--timeout-ms must be at least 1") }
    }

    func configuration(maxAttempts: Int?) throws -> SyncConfiguration {
        guard let url = URL(string: remote) else { throw ValidationError("--remote must be a URL") }
        let environment = ProcessInfo.processInfo.environment["CHRONICLE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return SyncConfiguration(
            remote: url, token: token ?? environment, batchSize: batchSize,
            retry: RetryPolicy(base: .milliseconds(retryBaseMs), maximum: .milliseconds(retryMaxMs), jitter: jitter,
                               maxAttempts: maxAttempts),
            requestTimeout: .milliseconds(timeoutMs))
    }
}

extension RetryPolicy.Jitter: ExpressibleByArgument {}

/// A sync failure, printed by the root as one `error: …` line.
struct SyncCommandError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }

    /// Why a push or pull ended short (`nil` when it completed), followed by `then` when given.
    init?(_ outcome: PushSummary.Outcome, then: String? = nil) {
        let reason: String
        switch outcome {
        case .complete: return nil
        case let .gaveUp(failure, attempts): reason = "gave up after \(attempts) failed \(attempts == 1 ? "try" : "tries"): \(failure)"
        case .stopped(let failure): reason = "\(failure)"
        }
        description = then.map { reason + "; " + $0 } ?? reason
    }
}

/// The engine's log lines on stderr: the CLI shows what the library keeps quiet.
private func syncLogger() -> Logger {
    Logger(label: "chronicle.sync") { label in StreamLogHandler.standardError(label: label) }
}

/// `1 event`, `2 events`.
private func events(_ count: some BinaryInteger) -> String {
    count == 1 ? "1 event" : "\(count) events"
}

/// A JSON string literal, or `null`.
private func jsonValue(_ text: String?) -> String {
    text.map(EventJSON.quote) ?? "null"
}

/// Turns SIGINT/SIGTERM into a callback instead of killing the process.
final class SignalTrap {
    private let sources: [any DispatchSourceSignal]

    init(_ signals: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}

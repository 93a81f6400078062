import ChronicleSync
import ChronicleTestSupport
import ChronicleLog
import Foundation
import ChronicleServer
import Testing

/// `chronicle sync …` and `chronicle serve` as separate processes.
@Suite("Command line sync", .timeLimit(.minutes(10)))
struct CommandLineTests {
    static func requireExecutable() throws -> String {
        let path = Executables.chronicle
        try #require(FileManager.default.isExecutableFile(atPath: path),
                     "build the CLI first: swift build --scratch-path <scratch> (expected \(path))")
        return path
    }

    static func statusJSON(_ chronicle: String, store: String) async throws -> [String: Any] {
        let result = try await Executables.run(chronicle, ["sync", "status", "--store", store, "--json"])
        #expect(result.exit.status == 0, "sync status failed: \(result.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(result.standardOutputText.utf8)) as? [String: Any]
        return try #require(object)
    }

    @Test("a push killed with SIGKILL mid-way resumes on restart: nothing lost, nothing stored twice")
    func killedPushResumes() async throws {
        let chronicle = try Self.requireExecutable()
        // Three batches pass; the fourth is stored, then its answer is held while the push is killed.
        try await withFaultServerAndStore(faults: [.pass, .pass, .pass, .holdUntilReleased]) { server, log, store in
            let ids = try await TestLog.appendEvents(log, count: 2000)
            let arguments = ["sync", "push", "--store", store.path, "--remote", server.url.absoluteString,
                             "--batch-size", "100", "--retry-base-ms", "1", "--retry-max-ms", "10", "--jitter", "none",
                             // Long: a batch retried after a timeout would take the held slot of the script.
                             "--timeout-ms", "60000"]
            let push = try await Executables.start(chronicle, arguments, environment: ["CHRONICLE_TOKEN": "token-f"])
            await server.script.waitUntilHolding()
            push.kill()
            let killed = await push.waitForExit()
            #expect(killed == .init(status: SIGKILL, wasSignalled: true), "\(killed): \(push.standardErrorText)")
            server.script.releaseAll()

            let interrupted = try await Self.statusJSON(chronicle, store: store.path)
            // Three batches were acknowledged; the engine stores an acknowledgement while it sends
            // the next batch, so a kill may leave the stored position one batch behind.
            let acked = try #require(interrupted["lastAckedPosition"] as? Int)
            #expect(acked == 300 || acked == 200, "\(acked)")
            #expect(interrupted["pending"] as? Int == 2000 - acked)
            #expect(try await server.http.pullAll(token: "token-f").count == 400)   // the fourth batch was stored

            let restarted = try await Executables.run(chronicle, arguments + ["--json"], environment: ["CHRONICLE_TOKEN": "token-f"])
            #expect(restarted.exit.status == 0, "restarted push failed: \(restarted.standardError)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(restarted.standardOutputText.utf8)) as? [String: Any])
            #expect(summary["complete"] as? Bool == true)
            #expect(summary["eventsAcknowledged"] as? Int == 2000 - acked)
            // The batch whose answer was lost, and one more when the stored position lagged.
            #expect(summary["duplicates"] as? Int == 400 - acked)
            #expect(summary["accepted"] as? Int == 1600)

            let stored = try await server.http.pullAll(token: "token-f")
            #expect(stored.map(\.id) == ids)
            #expect(Set(stored.map(\.id)).count == 2000)
            let done = try await Self.statusJSON(chronicle, store: store.path)
            #expect(done["pending"] as? Int == 0)
            #expect(done["lastAckedPosition"] as? Int == 2000)
            #expect(done["attempts"] as? Int == 0)
            #expect(done.keys.contains("lastError") && done["lastError"] is NSNull)
        }
    }

    @Test("sync push exits non-zero with one error line on 401, and status shows the cause")
    func pushUnauthorized() async throws {
        let chronicle = try Self.requireExecutable()
        try await withServerAndStore { server, log, store in
            try await TestLog.appendEvents(log, count: 7)
            let result = try await Executables.run(
                chronicle, ["sync", "push", "--store", store.path, "--remote", server.url.absoluteString, "--token", "wrong"])
            #expect(result.exit.status != 0)
            let lines = result.standardError.split(separator: "\n").filter { $0.hasPrefix("error: ") }
            #expect(lines == ["error: HTTP 401: unknown token; 7 events still pending"])
            let status = try await Self.statusJSON(chronicle, store: store.path)
            #expect(status["pending"] as? Int == 7)
            #expect(status["attempts"] as? Int == 1)
            #expect(status["lastError"] as? String == "HTTP 401: unknown token")
            #expect(status["counters"] as? [String: Int] == ["pushed": 0, "pulled": 0, "failures": 1, "conflicts": 0])
        }
    }

    @Test("sync push gives up after --max-attempts and exits non-zero")
    func pushGivesUp() async throws {
        let chronicle = try Self.requireExecutable()
        try await withFaultServerAndStore(faults: Array(repeating: .status(503), count: 5)) { server, log, store in
            try await TestLog.appendEvents(log, count: 3)
            let result = try await Executables.run(
                chronicle, ["sync", "push", "--store", store.path, "--remote", server.url.absoluteString, "--token", "token-f",
                            "--max-attempts", "3", "--retry-base-ms", "1", "--jitter", "none"])
            #expect(result.exit.status != 0)
            #expect(result.standardError.contains("error: gave up after 3 failed tries: HTTP 503: injected 503; 3 events still pending"))
            #expect(server.script.pushes.count == 3)
        }
    }

    @Test("serve on port 0 prints the bound address, accepts a push, and stops on SIGTERM")
    func serve() async throws {
        let chronicle = try Self.requireExecutable()
        let folder = try TemporaryFolder("serve")
        defer { folder.remove() }
        let serve = try await Executables.start(chronicle, ["serve", "--port", "0", "--data", folder.appending("data"),
                                                             "--token", "serve-token", "--log-level", "warning"])
        // The address line is the first thing on stdout; read it as it arrives.
        let url = try await Self.readListeningURL(serve)
        let log = try TestLog.open(store: folder.appending("client"))
        let ids = try await TestLog.appendEvents(log, count: 25)
        let engine = try SyncEngine.quiet(log: log, configuration: .testing(url, token: "serve-token", batchSize: 10))
        #expect(try await engine.push().isComplete)
        #expect(try await HTTP(base: url).pullAll(token: "serve-token").map(\.id) == ids)
        log.close()

        serve.terminate()
        let exit = await serve.waitForExit()
        #expect(exit == .init(status: 0, wasSignalled: false), "serve ended with \(exit): \(serve.standardErrorText)")
        let tenant = TokenTable.tenantName(forToken: "serve-token")
        #expect(FileManager.default.fileExists(atPath: folder.appending("data/tenants/\(tenant)")))
    }

    @Test("serve on a port another server holds: one line saying so, exit 1")
    func portInUse() async throws {
        let chronicle = try Self.requireExecutable()
        let folder = try TemporaryFolder("serve-twice")
        defer { folder.remove() }
        let first = try await Executables.start(chronicle, ["serve", "--port", "0", "--data", folder.appending("one"),
                                                             "--token", "t", "--log-level", "warning"])
        let url = try await Self.readListeningURL(first)
        let port = try #require(url.port)
        let second = try await Executables.start(chronicle, ["serve", "--port", "\(port)", "--data", folder.appending("two"),
                                                              "--token", "t", "--log-level", "warning"])
        #expect(await second.waitForExit() == .init(status: 1, wasSignalled: false))
        #expect(second.standardErrorText == "error: port \(port) on 127.0.0.1 is in use by another process: "
                + "stop it, or pass another --port (0 picks a free one)\n")
        first.terminate()
        #expect(await first.waitForExit() == .init(status: 0, wasSignalled: false), "\(first.standardErrorText)")
    }

    @Test("sync run pushes events appended by another process and stops cleanly on SIGTERM")
    func run() async throws {
        let chronicle = try Self.requireExecutable()
        try await withServerAndStore { server, log, store in
            let first = try await TestLog.appendEvents(log, count: 15)
            let running = try await Executables.start(
                chronicle, ["sync", "run", "--store", store.path, "--remote", server.url.absoluteString, "--token", "token-a"])
            #expect(try await running.firstLine { $0.hasPrefix("acknowledged up to position 15,") } != nil, "\(running.standardErrorText)")
            let second = try await TestLog.appendEvents(log, count: 5, start: 15)   // this process appends; the child notices
            #expect(try await running.firstLine { $0.hasPrefix("acknowledged up to position 20,") } != nil, "\(running.standardErrorText)")
            #expect(try await server.http.pullAll(token: "token-a").map(\.id) == first + second)

            running.terminate()
            let exit = await running.waitForExit()
            #expect(exit == .init(status: 0, wasSignalled: false), "sync run ended with \(exit): \(running.standardErrorText)")
            #expect(try SyncEngine.status(of: log).pending == 0)
        }
    }

    /// The address of the `listening on …` line serve prints once it listens.
    static func readListeningURL(_ child: ChildProcess) async throws -> URL {
        let line = try #require(try await child.firstLine { $0.hasPrefix("listening on ") }, "serve printed no address: \(child.standardErrorText)")
        let address = line.dropFirst("listening on ".count).split(separator: " ").first ?? ""
        return try #require(URL(string: String(address)))
    }
}
